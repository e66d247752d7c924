/**
 * The operations of an OpenAPI 3.x or Swagger 2.0 document in one shape: a stable tool name,
 * parameters (path, query, header), the request body with its content type, and the 2xx
 * response schema. What cannot be called faithfully is left out with a reason.
 * @module
 */

import { toIdentifier } from "../../protocol/names.ts";
import type { ApiSchemaTypes } from "../kind_support/api_schema_types.ts";
import { asRecord } from "../kind_support/as_record.ts";
import { operationSelected } from "../kind_support/operation_filter.ts";
import { type ApiSecurity, operationSecurity } from "./api_security.ts";

/** One parameter of an operation as the argument object carries it. */
export interface ApiParameter {
  /** The name the API uses. */
  name: string;
  /** The property of the argument object (the name, unless two places share it). */
  key: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: unknown;
  description: string;
  /** OpenAPI 3 `style`/`explode`, or Swagger `collectionFormat`, for serialising arrays. */
  style: string;
  explode: boolean;
}

/** The request body of an operation. */
export interface ApiBody {
  /** Property of the argument object holding it: `body`, or `requestBody` if a parameter is `body`. */
  key: string;
  contentType: string;
  schema: unknown;
  required: boolean;
  description: string;
}

/** One callable operation. */
export interface ApiOperation {
  /** Tool name: the sanitised `operationId`, or method and path (`get_pets_petId`). */
  name: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  deprecated: boolean;
  parameters: ApiParameter[];
  body: ApiBody | undefined;
  /** Schema of the 2xx answer; `null` when the answer has no body (e.g. only 204). */
  response: unknown;
  /** What a call needs to be allowed (empty: nothing). */
  security: ApiSecurity;
}

/** The operations kept, and what was left out or loosened, with reasons. */
export interface ExtractedOperations {
  operations: ApiOperation[];
  /** `left out METHOD /path: reason` and `loosened …` lines. */
  notes: string[];
  /** How many operations the document declares. */
  total: number;
  /** How many `include`/`exclude` removed. */
  filtered: number;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Body media types the gateway can send, best first. */
const BODY_TYPES: Array<(type: string) => boolean> = [
  (t) => t === "application/json",
  (t) => /^application\/[^;]*\+json$/.test(t) || t === "*/*",
  (t) => t === "application/x-www-form-urlencoded",
  (t) => t === "multipart/form-data",
  (t) => t.startsWith("text/"),
  (t) => t === "application/octet-stream",
];

/**
 * Lists the operations of `document`, filtered by `include`/`exclude` patterns (`tag:NAME`,
 * `METHOD /path/*`, `/path/*`, or a glob of tool names). Names are unique: a repeated one gets
 * a numeric suffix and a note.
 */
export function extractOperations(
  document: Record<string, unknown>,
  schemas: ApiSchemaTypes,
  options: { include: readonly string[]; exclude: readonly string[] },
): ExtractedOperations {
  const swagger = document.swagger === "2.0";
  const notes: string[] = [];
  const operations: ApiOperation[] = [];
  const usedNames = new Set<string>();
  let total = 0;
  let filtered = 0;
  const paths = asRecord(document.paths) ?? {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = schemas.deref(rawItem);
    if (item === undefined) continue;
    for (const method of METHODS) {
      const operation = asRecord(item[method]);
      if (operation === undefined) continue;
      total++;
      const where = `${method.toUpperCase()} ${path}`;
      const name = uniqueName(operationName(operation, method, path), usedNames, notes, where);
      const tags = Array.isArray(operation.tags)
        ? operation.tags.filter((t): t is string => typeof t === "string")
        : [];
      if (!operationSelected({ name, method, path, tags }, options)) {
        filtered++;
        usedNames.delete(name);
        continue;
      }
      const built = buildOperation(
        { path, method, name, tags, operation, item, swagger, document },
        schemas,
      );
      if (typeof built === "string") {
        notes.push(`left out ${where} (${name}): ${built}`);
        usedNames.delete(name);
        continue;
      }
      if (asRecord(operation.callbacks) !== undefined) {
        notes.push(`loosened ${where} (${name}): its callbacks are not represented`);
      }
      operations.push(built);
    }
  }
  return { operations, notes, total, filtered };
}

function operationName(operation: Record<string, unknown>, method: string, path: string): string {
  if (typeof operation.operationId === "string" && operation.operationId.trim() !== "") {
    return toIdentifier(operation.operationId.trim().replace(/[^A-Za-z0-9_$]+/g, "_"));
  }
  const words = path.split("/").filter((p) => p !== "").map((p) => p.replace(/[{}]/g, ""));
  return toIdentifier([method, ...words].join("_").replace(/[^A-Za-z0-9_$]+/g, "_"));
}

function uniqueName(name: string, used: Set<string>, notes: string[], where: string): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}_${n}`;
  if (candidate !== name) {
    notes.push(`renamed ${where}: its name "${name}" is taken, so it is "${candidate}"`);
  }
  used.add(candidate);
  return candidate;
}

interface OperationSource {
  path: string;
  method: string;
  name: string;
  tags: string[];
  operation: Record<string, unknown>;
  item: Record<string, unknown>;
  swagger: boolean;
  document: Record<string, unknown>;
}

/** The operation, or the reason it is left out. */
function buildOperation(source: OperationSource, schemas: ApiSchemaTypes): ApiOperation | string {
  const { operation, item, swagger } = source;
  const byPlace = new Map<string, Record<string, unknown>>();
  for (const list of [item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = schemas.deref(raw);
      if (parameter === undefined || typeof parameter.name !== "string") continue;
      byPlace.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  const parameters: ApiParameter[] = [];
  const formData: Record<string, unknown>[] = [];
  let swaggerBody: Record<string, unknown> | undefined;
  for (const parameter of byPlace.values()) {
    const place = parameter.in;
    const name = parameter.name as string;
    if (place === "cookie") {
      if (parameter.required === true) {
        return `it needs cookie parameter "${name}", which the gateway does not send`;
      }
      continue;
    }
    if (place === "body") {
      swaggerBody = parameter;
      continue;
    }
    if (place === "formData") {
      formData.push(parameter);
      continue;
    }
    if (place !== "path" && place !== "query" && place !== "header") {
      return `parameter "${name}" is in "${String(place)}", which is not a parameter location`;
    }
    const schema = swagger ? swaggerParameterSchema(parameter) : parameter.schema ??
      firstMediaSchema(parameter.content);
    const style = swagger
      ? String(parameter.collectionFormat ?? "csv")
      : String(parameter.style ?? (place === "query" ? "form" : "simple"));
    const explode = swagger
      ? parameter.collectionFormat === "multi"
      : typeof parameter.explode === "boolean"
      ? parameter.explode
      : style === "form";
    parameters.push({
      name,
      key: name,
      in: place,
      required: place === "path" || parameter.required === true,
      schema,
      description: typeof parameter.description === "string" ? parameter.description : "",
      style,
      explode,
    });
  }
  // Two places may share a name (`id` in path and query): the later ones are qualified.
  const keys = new Set<string>();
  for (const parameter of parameters) {
    if (keys.has(parameter.key)) parameter.key = `${parameter.in}_${parameter.name}`;
    keys.add(parameter.key);
  }
  const cookieOnly = cookieOnlyAuth(source, schemas);
  if (cookieOnly !== undefined) {
    return `its only authentication is the cookie "${cookieOnly}", which the gateway does not send`;
  }
  const bodyKey = keys.has("body") ? "requestBody" : "body";
  const body = swagger
    ? swaggerBodyOf(source, swaggerBody, formData, bodyKey)
    : openApiBodyOf(schemas.deref(operation.requestBody), bodyKey);
  if (typeof body === "string") return body;
  const response = swagger
    ? swaggerResponse(operation, schemas)
    : openApiResponse(operation, schemas);
  return {
    name: source.name,
    method: source.method,
    path: source.path,
    summary: typeof operation.summary === "string" ? operation.summary : "",
    description: typeof operation.description === "string" ? operation.description : "",
    tags: source.tags,
    deprecated: operation.deprecated === true,
    parameters,
    body,
    response,
    security: operationSecurity(operation, source.document, schemas),
  };
}

/**
 * The cookie name when every way to authenticate the operation is an API key in a cookie;
 * undefined when some requirement can be met with headers or query (or none is needed).
 */
function cookieOnlyAuth(source: OperationSource, schemas: ApiSchemaTypes): string | undefined {
  const requirements = Array.isArray(source.operation.security)
    ? source.operation.security
    : Array.isArray(source.document.security)
    ? source.document.security
    : [];
  if (requirements.length === 0) return undefined;
  const schemes = source.swagger
    ? asRecord(source.document.securityDefinitions)
    : asRecord(asRecord(source.document.components)?.securitySchemes);
  let cookie: string | undefined;
  for (const requirement of requirements) {
    const names = Object.keys(asRecord(requirement) ?? {});
    if (names.length === 0) return undefined; // `{}`: anonymous access is allowed
    const cookies = names.map((name) => schemas.deref(schemes?.[name]))
      .filter((scheme) => scheme?.type === "apiKey" && scheme.in === "cookie");
    if (cookies.length === 0) return undefined;
    cookie ??= String(cookies[0]?.name ?? names[0]);
  }
  return cookie;
}

/** A Swagger 2.0 non-body parameter carries its schema keywords inline. */
function swaggerParameterSchema(parameter: Record<string, unknown>): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  for (const key of Object.keys(parameter)) {
    if (
      ["name", "in", "required", "description", "collectionFormat", "allowEmptyValue"].includes(key)
    ) {
      continue;
    }
    schema[key] = parameter[key];
  }
  return schema;
}

function firstMediaSchema(content: unknown): unknown {
  const media = asRecord(content);
  if (media === undefined) return undefined;
  const first = Object.values(media)[0];
  return asRecord(first)?.schema;
}

function openApiBodyOf(
  requestBody: Record<string, unknown> | undefined,
  key: string,
): ApiBody | undefined | string {
  if (requestBody === undefined) return undefined;
  const content = asRecord(requestBody.content) ?? {};
  const types = Object.keys(content);
  if (types.length === 0) return undefined;
  const contentType = pickContentType(types);
  if (contentType === undefined) {
    if (requestBody.required !== true) return undefined;
    return `its body is only accepted as ${types.map((t) => `"${t}"`).join(", ")}`;
  }
  return {
    key,
    contentType: contentType === "*/*" ? "application/json" : contentType,
    schema: asRecord(content[contentType])?.schema,
    required: requestBody.required === true,
    description: typeof requestBody.description === "string" ? requestBody.description : "",
  };
}

function swaggerBodyOf(
  source: OperationSource,
  body: Record<string, unknown> | undefined,
  formData: Record<string, unknown>[],
  key: string,
): ApiBody | undefined | string {
  const consumes = [
    ...(Array.isArray(source.operation.consumes) ? source.operation.consumes : []),
    ...(Array.isArray(source.document.consumes) ? source.document.consumes : []),
  ].filter((t): t is string => typeof t === "string");
  if (body !== undefined) {
    const contentType = consumes.length === 0 ? "application/json" : pickContentType(consumes);
    if (contentType === undefined) {
      return `its body is only accepted as ${consumes.map((t) => `"${t}"`).join(", ")}`;
    }
    return {
      key,
      contentType,
      schema: body.schema,
      required: body.required === true,
      description: typeof body.description === "string" ? body.description : "",
    };
  }
  if (formData.length === 0) return undefined;
  const multipart = formData.some((p) => p.type === "file") ||
    consumes.includes("multipart/form-data");
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of formData) {
    const name = parameter.name as string;
    properties[name] = {
      ...swaggerParameterSchema(parameter),
      ...(typeof parameter.description === "string" ? { description: parameter.description } : {}),
    };
    if (parameter.required === true) required.push(name);
  }
  return {
    key,
    contentType: multipart ? "multipart/form-data" : "application/x-www-form-urlencoded",
    schema: { type: "object", properties, required },
    required: required.length > 0,
    description: "",
  };
}

function pickContentType(types: readonly string[]): string | undefined {
  const lower = types.map((t) => t.toLowerCase().split(";")[0]!.trim());
  for (const test of BODY_TYPES) {
    const index = lower.findIndex(test);
    if (index !== -1) return lower[index];
  }
  return undefined;
}

/** Success codes in the order the answer's type is taken from. */
function successCodes(responses: Record<string, unknown>): string[] {
  return Object.keys(responses).filter((code) => /^2(\d\d|XX)$/i.test(code)).sort();
}

function openApiResponse(operation: Record<string, unknown>, schemas: ApiSchemaTypes): unknown {
  const responses = asRecord(operation.responses) ?? {};
  const codes = successCodes(responses);
  for (const code of codes) {
    const response = schemas.deref(responses[code]);
    const content = asRecord(response?.content);
    if (content === undefined || Object.keys(content).length === 0) continue;
    const types = Object.keys(content);
    const json = types.find((t) => /json/i.test(t)) ?? types[0]!;
    return asRecord(content[json])?.schema ?? {};
  }
  return codes.length > 0 ? null : {};
}

function swaggerResponse(operation: Record<string, unknown>, schemas: ApiSchemaTypes): unknown {
  const responses = asRecord(operation.responses) ?? {};
  const codes = successCodes(responses);
  for (const code of codes) {
    const response = schemas.deref(responses[code]);
    if (response?.schema !== undefined) return response.schema;
  }
  return codes.length > 0 ? null : {};
}
