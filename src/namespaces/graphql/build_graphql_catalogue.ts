/**
 * A GraphQL schema (from introspection) → the namespace catalogue: one tool per query and
 * mutation field, its arguments typed as one object, its answer typed by the selection the
 * gateway sends (the default selection, or `$select` text of the script's own).
 * @module
 */

import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
} from "graphql";
import {
  DEFAULT_ACTION_ANNOTATION,
  type JsonSchema,
  type NamespaceCatalogue,
  type ToolDescriptor,
} from "../namespace.ts";
import { toIdentifier } from "../../protocol/names.ts";
import {
  declaration,
  type SchemaDocument,
  SchemaTypes,
  typeNameFor,
} from "../kind_support/schema_types.ts";
import { globMatch } from "../kind_support/operation_filter.ts";

/** The argument key that carries a script's own selection set. */
export const SELECT_KEY = "$select";

/** How deep the default selection follows object fields. */
const DEFAULT_DEPTH = 2;

/** One tool: a root field of `query` or `mutation`. */
export interface GraphqlOperation {
  name: string;
  operation: "query" | "mutation";
  field: GraphQLField<unknown, unknown>;
  /** The schema the field belongs to, which a script's `$select` is validated against. */
  schema: GraphQLSchema;
  /** Selection set sent when the script gives no `$select` (empty for a scalar field). */
  defaultSelection: string;
  inputSchema: JsonSchema;
}

/** The catalogue plus the operations the call path needs. */
export interface GraphqlCatalogue {
  catalogue: NamespaceCatalogue;
  operations: Map<string, GraphqlOperation>;
}

/** Builds the catalogue of a GraphQL schema; mutations get `writes` as their default policy. */
export function buildGraphqlCatalogue(
  schema: GraphQLSchema,
  options: {
    writes: "ask" | "allow" | "deny";
    /** Tool-name globs (`user*`) or `query:NAME`/`mutation:NAME` globs to keep. @default all */
    include?: readonly string[];
    /** The same patterns, to leave out. @default none */
    exclude?: readonly string[];
  },
): GraphqlCatalogue {
  const renderer = new GraphqlTypes(schema);
  const tools: ToolDescriptor[] = [];
  const declarations: string[] = [];
  const operations = new Map<string, GraphqlOperation>();
  const warnings: string[] = [];
  const roots = [["query", schema.getQueryType()], ["mutation", schema.getMutationType()]] as const;
  let filtered = 0;
  for (const [kind, root] of roots) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      if (!selected(kind, field.name, options.include ?? [], options.exclude ?? [])) {
        filtered++;
        continue;
      }
      let name = toIdentifier(field.name);
      if (operations.has(name)) {
        const renamed = `${name}_${kind}`;
        warnings.push(
          `renamed ${kind} field "${field.name}": "${name}" is taken, so it is "${renamed}"`,
        );
        name = renamed;
      }
      const stem = typeNameFor(name);
      const inputName = renderer.types.uniqueTypeName(`${stem}Input`);
      const outputName = renderer.types.uniqueTypeName(`${stem}Output`);
      const selectable = isObjectLike(field.type);
      const members = field.args.length + (selectable ? 1 : 0);
      if (members > 0) {
        const input = renderer.argumentsSchema(field.args, selectable);
        declarations.push(renderer.document.declaration(inputName, input));
      }
      declarations.push(
        declaration(outputName, renderer.document.typeOf(outputTypeSchema(field.type))),
      );
      const required = field.args.filter((arg) =>
        isNonNullType(arg.type) && arg.defaultValue === undefined
      );
      const annotations: Record<string, unknown> = { readOnlyHint: kind === "query" };
      if (kind === "mutation" && options.writes !== "allow") {
        annotations[DEFAULT_ACTION_ANNOTATION] = options.writes;
      }
      tools.push({
        originalName: name,
        description: [field.description ?? "", `GraphQL ${kind} field \`${field.name}\`.`]
          .filter((p) => p.trim() !== "").join("\n\n"),
        inputType: members > 0 ? inputName : null,
        inputOptional: required.length === 0,
        outputType: outputName,
        params: field.args.map((arg) => ({
          name: arg.name,
          description: (arg.description ?? "").split("\n")[0] ?? "",
          required: required.includes(arg),
        })),
        annotations,
      });
      operations.set(name, {
        name,
        operation: kind,
        field,
        schema,
        defaultSelection: selectable ? selectionOf(field.type, DEFAULT_DEPTH) : "",
        inputSchema: validationSchema(field.args, selectable),
      });
    }
  }
  if (filtered > 0) warnings.push(`left out ${filtered} fields by "include"/"exclude"`);
  return {
    catalogue: {
      tools,
      declarations: [renderer.types.declarations(), ...declarations].filter((d) => d !== "")
        .join("\n"),
      warnings,
    },
    operations,
  };
}

/**
 * The schema's named types as JSON Schema (`#/$defs/NAME`), rendered by the renderer every
 * kind uses: each reached type declared once, by name. Output object types have every field
 * optional (the selection decides which come back) plus `__typename`; a nullable type is
 * `T | null`.
 */
class GraphqlTypes {
  readonly types = new SchemaTypes();
  readonly document: SchemaDocument;

  constructor(schema: GraphQLSchema) {
    const defs: Record<string, unknown> = {};
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith("__") || isScalarType(type)) continue;
      defs[type.name] = namedTypeSchema(type);
    }
    this.document = this.types.document({ $defs: defs }, [
      { prefix: "#/$defs/", schemas: defs, stem: typeNameFor },
    ]);
  }

  /** The arguments object as TypeScript sees it, with `$select` when the answer has fields. */
  argumentsSchema(args: readonly GraphQLArgument[], selectable: boolean): JsonSchema {
    const properties: Record<string, unknown> = {};
    for (const arg of args) {
      properties[arg.name] = documented(
        inputTypeSchema(arg.type),
        arg.description,
        arg.defaultValue,
      );
    }
    if (selectable) {
      properties[SELECT_KEY] = {
        type: "string",
        description:
          "GraphQL selection set to send instead of the default one, e.g. `{ id name }`.",
      };
    }
    const required = args.filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
      .map((arg) => arg.name);
    return { type: "object", properties, required };
  }
}

/** A named type as JSON Schema, for its declaration. */
function namedTypeSchema(type: GraphQLNamedType): unknown {
  let schema: Record<string, unknown>;
  if (isEnumType(type)) schema = { enum: type.getValues().map((value) => value.name) };
  else if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const properties = Object.fromEntries(fields.map((field) => [
      field.name,
      documented(inputTypeSchema(field.type), field.description, field.defaultValue),
    ]));
    const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined)
      .map((field) => field.name);
    schema = { type: "object", properties, required };
  } else if (isObjectType(type) || isInterfaceType(type)) {
    // Every field is optional: the selection decides which ones come back.
    const properties: Record<string, unknown> = Object.fromEntries(
      Object.values(type.getFields()).map((field) => [
        field.name,
        documented(outputTypeSchema(field.type), field.description, undefined),
      ]),
    );
    properties.__typename = { type: "string" };
    schema = { type: "object", properties };
  } else if (isUnionType(type) && type.getTypes().length > 0) {
    schema = { anyOf: type.getTypes().map(namedRef) };
  } else return false; // an empty union: no value has it
  return documented(schema, type.description, undefined);
}

/** A reference to a named type: a scalar inline, any other by `$ref`. */
function namedRef(type: GraphQLNamedType): Record<string, unknown> {
  if (!isScalarType(type)) return { $ref: `#/$defs/${type.name}` };
  switch (type.name) {
    case "Int":
    case "Float":
      return { type: "number" };
    case "String":
      return { type: "string" };
    case "ID":
      return { type: ["string", "number"] };
    case "Boolean":
      return { type: "boolean" };
    default:
      return {};
  }
}

/** An argument's or input field's type as JSON Schema; nullable as `T | null`. */
function inputTypeSchema(type: GraphQLInputType): Record<string, unknown> {
  if (isNonNullType(type)) return inputNonNullTypeSchema(type.ofType);
  return { anyOf: [inputNonNullTypeSchema(type), { type: "null" }] };
}

function inputNonNullTypeSchema(type: GraphQLInputType): Record<string, unknown> {
  if (isNonNullType(type)) return inputNonNullTypeSchema(type.ofType);
  if (isListType(type)) return { type: "array", items: inputTypeSchema(type.ofType) };
  return namedRef(type);
}

/** A field's answer type as JSON Schema; nullable as `T | null`. */
function outputTypeSchema(type: GraphQLOutputType): Record<string, unknown> {
  if (isNonNullType(type)) return outputNonNullTypeSchema(type.ofType);
  return { anyOf: [outputNonNullTypeSchema(type), { type: "null" }] };
}

function outputNonNullTypeSchema(type: GraphQLOutputType): Record<string, unknown> {
  if (isNonNullType(type)) return outputNonNullTypeSchema(type.ofType);
  if (isListType(type)) return { type: "array", items: outputTypeSchema(type.ofType) };
  return namedRef(type);
}

/** `schema` with a GraphQL description and default value, for its JSDoc. */
function documented(
  schema: Record<string, unknown>,
  description: string | null | undefined,
  defaultValue: unknown,
): Record<string, unknown> {
  return {
    ...schema,
    ...(description ? { description } : {}),
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  };
}

/** The arguments object as JSON Schema (draft 2020-12) for the validator. */
function validationSchema(args: readonly GraphQLArgument[], selectable: boolean): JsonSchema {
  const defs: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  for (const arg of args) properties[arg.name] = inputJsonSchema(arg.type, defs);
  if (selectable) properties[SELECT_KEY] = { type: "string" };
  const required = args.filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
    .map((arg) => arg.name);
  const schema: JsonSchema = {
    type: "object",
    properties,
    required,
    additionalProperties: false,
  };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

function inputJsonSchema(type: GraphQLInputType, defs: Record<string, unknown>): unknown {
  if (isNonNullType(type)) return inputNonNullSchema(type.ofType, defs);
  return { anyOf: [inputNonNullSchema(type, defs), { type: "null" }] };
}

function inputNonNullSchema(type: GraphQLInputType, defs: Record<string, unknown>): unknown {
  if (isNonNullType(type)) return inputNonNullSchema(type.ofType, defs);
  if (isListType(type)) {
    // GraphQL coerces a single value into a list of one.
    const item = inputJsonSchema(type.ofType, defs);
    return { anyOf: [{ type: "array", items: item }, item] };
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case "Int":
        return { type: "integer" };
      case "Float":
        return { type: "number" };
      case "String":
        return { type: "string" };
      case "ID":
        return { type: ["string", "integer"] };
      case "Boolean":
        return { type: "boolean" };
      default:
        return {};
    }
  }
  if (isEnumType(type)) return { enum: type.getValues().map((v) => v.name) };
  if (!(type.name in defs)) {
    defs[type.name] = {};
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      properties[field.name] = inputJsonSchema(field.type, defs);
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    defs[type.name] = { type: "object", properties, required, additionalProperties: false };
  }
  return { $ref: `#/$defs/${type.name}` };
}

function unwrapType(type: GraphQLOutputType): GraphQLNamedType {
  let current: GraphQLOutputType = type;
  while (isNonNullType(current) || isListType(current)) current = current.ofType;
  return current;
}

function isObjectLike(type: GraphQLOutputType): boolean {
  const named = unwrapType(type);
  return isObjectType(named) || isInterfaceType(named) || isUnionType(named);
}

/**
 * The default selection of a type: its scalar and enum fields, and object fields (without
 * required arguments) to `depth` levels; unions select `__typename` and each member's scalars.
 */
export function selectionOf(type: GraphQLOutputType, depth: number): string {
  const named = unwrapType(type);
  if (isUnionType(named)) {
    const parts = named.getTypes().map((member) =>
      `... on ${member.name} ${selectionOf(member, depth - 1)}`
    );
    return `{ __typename ${parts.join(" ")} }`;
  }
  if (!isObjectType(named) && !isInterfaceType(named)) return "";
  const fields: string[] = [];
  for (const field of Object.values(named.getFields())) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) {
      continue;
    }
    if (isObjectLike(field.type)) {
      if (depth > 1) {
        const inner = selectionOf(field.type, depth - 1);
        if (inner !== "" && inner !== "{ }") fields.push(`${field.name} ${inner}`);
      }
    } else fields.push(field.name);
  }
  if (fields.length === 0) fields.push("__typename");
  return `{ ${fields.join(" ")} }`;
}

function selected(
  kind: "query" | "mutation",
  name: string,
  include: readonly string[],
  exclude: readonly string[],
): boolean {
  const matches = (pattern: string) => {
    const scoped = /^(query|mutation):(.*)$/.exec(pattern);
    if (scoped) return scoped[1] === kind && globMatch(scoped[2]!, name);
    return globMatch(pattern, name);
  };
  if (include.length > 0 && !include.some(matches)) return false;
  return !exclude.some(matches);
}
