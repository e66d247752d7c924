/**
 * What an OpenAPI operation needs to be allowed (its `security` requirements, resolved against
 * the document's security schemes) and whether the `apis` entry's configured headers and base
 * URL provide it: shown by `gateway tools NS` and `describe`, and named in a call's 401/403
 * error, so a missing credential is seen before a call fails and explained when one does.
 * @module
 */

import type { ToolSecurity } from "../namespace.ts";
import type { ApiSchemaTypes } from "../kind_support/api_schema_types.ts";
import { asRecord } from "../kind_support/as_record.ts";

/** One security scheme a requirement names, resolved from the document. */
export interface ApiSecurityScheme {
  /** The scheme's key in `securitySchemes` / `securityDefinitions`. */
  name: string;
  /** `apiKey`, `http`, `oauth2`, `openIdConnect`, `mutualTLS`, or what the document says. */
  type: string;
  /** `apiKey`: where the key goes (`header`, `query`, `cookie`) and under what name. */
  in?: string;
  parameter?: string;
  /** `http`: `bearer`, `basic`, … */
  scheme?: string;
  /** The scopes the requirement asks for (OAuth 2, OpenID Connect). */
  scopes: string[];
}

/**
 * The ways to be allowed to call an operation: any one alternative suffices, and each needs all
 * of its schemes. Empty when the operation needs nothing (no requirement, or `{}` among them:
 * anonymous access is allowed).
 */
export type ApiSecurity = ApiSecurityScheme[][];

/** The operation's requirements (its own `security`, else the document's), resolved. */
export function operationSecurity(
  operation: Record<string, unknown>,
  document: Record<string, unknown>,
  schemas: ApiSchemaTypes,
): ApiSecurity {
  const requirements = Array.isArray(operation.security)
    ? operation.security
    : Array.isArray(document.security)
    ? document.security
    : [];
  const defined = document.swagger === "2.0"
    ? asRecord(document.securityDefinitions)
    : asRecord(asRecord(document.components)?.securitySchemes);
  const alternatives: ApiSecurity = [];
  for (const requirement of requirements) {
    const names = Object.entries(asRecord(requirement) ?? {});
    if (names.length === 0) return []; // `{}`: anonymous access is allowed
    alternatives.push(names.map(([name, scopes]) => {
      const scheme = schemas.deref(defined?.[name]) ?? {};
      const type = String(scheme.type ?? "unknown");
      return {
        name,
        // Swagger 2.0 says "basic" where OpenAPI 3 says http/basic.
        type: type === "basic" ? "http" : type,
        ...(typeof scheme.in === "string" ? { in: scheme.in } : {}),
        ...(typeof scheme.name === "string" ? { parameter: scheme.name } : {}),
        ...(type === "basic"
          ? { scheme: "basic" }
          : typeof scheme.scheme === "string"
          ? { scheme: scheme.scheme.toLowerCase() }
          : {}),
        scopes: Array.isArray(scopes) ? scopes.filter((s) => typeof s === "string") : [],
      };
    }));
  }
  return alternatives;
}

/** One scheme as a person reads it: `oauth2 "petstore_auth" (scopes write:pets)`. */
function schemeText(scheme: ApiSecurityScheme): string {
  const scopes = scheme.scopes.length > 0 ? `, scopes ${scheme.scopes.join(" ")}` : "";
  if (scheme.type === "apiKey") {
    return `apiKey "${scheme.name}" (${scheme.in ?? "header"} "${
      scheme.parameter ?? scheme.name
    }")`;
  }
  if (scheme.type === "http") {
    return `http ${scheme.scheme ?? ""} "${scheme.name}"`.replace("  ", " ");
  }
  return `${scheme.type} "${scheme.name}"${scopes ? ` (${scopes.slice(2)})` : ""}`;
}

/** What the entry configures that a credential may travel in. */
export interface ConfiguredCredentials {
  /** The `apis` entry's headers (names compared without case). */
  headers: Record<string, string>;
  /** The base URL in force (a key may ride in its query). */
  baseUrl: string;
}

/** Whether the configured headers or base URL carry what `scheme` needs; where, if so. */
function provided(scheme: ApiSecurityScheme, credentials: ConfiguredCredentials): string | null {
  const header = (name: string) =>
    Object.entries(credentials.headers).find(([key, value]) =>
      key.toLowerCase() === name.toLowerCase() && value.trim() !== ""
    )?.[0];
  if (scheme.type === "apiKey") {
    const parameter = scheme.parameter ?? scheme.name;
    if (scheme.in === "query") {
      let query: URLSearchParams;
      try {
        query = new URL(credentials.baseUrl).searchParams;
      } catch {
        return null;
      }
      return query.has(parameter) ? `the baseUrl's query "${parameter}"` : null;
    }
    if (scheme.in === "cookie") return null; // the gateway sends no cookies
    const found = header(parameter);
    return found === undefined ? null : `headers."${found}"`;
  }
  if (["http", "oauth2", "openIdConnect"].includes(scheme.type)) {
    const found = header("authorization");
    if (found === undefined) return null;
    const value = credentials.headers[found]!.trim().toLowerCase();
    if (scheme.type === "http" && scheme.scheme && !value.startsWith(scheme.scheme)) return null;
    return `headers."${found}"`;
  }
  return null; // mutualTLS and unknown types: nothing the gateway can send
}

/** The config that provides `scheme`, for a fix. */
function fixFor(scheme: ApiSecurityScheme, namespace: string): string {
  const where = `in "apis.${namespace}" of gateway.json`;
  if (scheme.type === "apiKey") {
    const parameter = scheme.parameter ?? scheme.name;
    if (scheme.in === "query") {
      return `add "?${parameter}=…" to "baseUrl" ${where}`;
    }
    if (scheme.in === "cookie") return "the gateway sends no cookies: this scheme cannot be used";
    return `add "headers": { "${parameter}": "\${env:${envName(parameter)}}" } ${where}`;
  }
  if (scheme.type === "http" && scheme.scheme === "basic") {
    return `add "headers": { "Authorization": "Basic \${env:${
      envName(namespace)
    }_BASIC}" } ${where}`;
  }
  if (["http", "oauth2", "openIdConnect"].includes(scheme.type)) {
    return `add "headers": { "Authorization": "Bearer \${env:${
      envName(namespace)
    }_TOKEN}" } ${where}`;
  }
  return `the gateway cannot send ${scheme.type} credentials`;
}

/** An environment variable name made from `text` (`api_key` → `API_KEY`). */
function envName(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "API_KEY";
}

/**
 * What the operation needs and whether the configuration provides it, or undefined when it
 * needs nothing. An alternative is provided when each of its schemes is; the first one that is
 * (else the first) is the one shown.
 *
 * @example
 * ```ts
 * import { securityStatus } from "./api_security.ts";
 * import assert from "node:assert/strict";
 * const needs = [[{ name: "key", type: "apiKey", in: "header", parameter: "X-Key", scopes: [] }]];
 * const missing = securityStatus(needs, { headers: {}, baseUrl: "http://h" }, "pets");
 * assert.equal(missing?.satisfied, false);
 * assert.match(missing?.fix ?? "", /"headers": \{ "X-Key": "\$\{env:X_KEY\}" \}/);
 * const given = securityStatus(needs, { headers: { "x-key": "s" }, baseUrl: "http://h" }, "pets");
 * assert.equal(given?.satisfied, true);
 * ```
 */
export function securityStatus(
  security: ApiSecurity,
  credentials: ConfiguredCredentials,
  namespace: string,
): ToolSecurity | undefined {
  if (security.length === 0) return undefined;
  const needs = security.map((all) => all.map(schemeText).join(" and ")).join(" or ");
  for (const alternative of security) {
    const sources = alternative.map((scheme) => provided(scheme, credentials));
    if (sources.every((s) => s !== null)) {
      return { needs, satisfied: true, by: [...new Set(sources)].join(", ") };
    }
  }
  const first = security[0]!;
  const missing = first.filter((scheme) => provided(scheme, credentials) === null);
  return {
    needs,
    satisfied: false,
    fix: [...new Set(missing.map((scheme) => fixFor(scheme, namespace)))].join("; "),
  };
}
