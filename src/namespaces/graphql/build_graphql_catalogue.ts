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
import { typeNameFor } from "../kind_support/schema_to_typescript.ts";
import { jsDoc } from "../kind_support/api_schema_types.ts";
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
  const renderer = new GraphqlTypes();
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
      const inputName = renderer.unique(`${stem}Input`);
      const outputName = renderer.unique(`${stem}Output`);
      const members = field.args.map((arg) => renderer.argumentMember(arg));
      const selectable = isObjectLike(field.type);
      if (selectable) {
        members.push(
          `${
            jsDoc(
              "GraphQL selection set to send instead of the default one, e.g. `{ id name }`.",
              "  ",
            )
          }  ${SELECT_KEY}?: string;`,
        );
      }
      declarations.push(`export interface ${inputName} {\n${members.join("\n")}\n}`);
      declarations.push(`export type ${outputName} = ${renderer.outputType(field.type)};`);
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
        inputType: members.length > 0 ? inputName : null,
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
        inputSchema: renderer.inputSchema(field.args, selectable),
      });
    }
  }
  if (filtered > 0) warnings.push(`left out ${filtered} fields by "include"/"exclude"`);
  return {
    catalogue: {
      tools,
      declarations: [renderer.declarations(), ...declarations].filter((d) => d !== "").join("\n"),
      warnings,
    },
    operations,
  };
}

/** Named GraphQL types as TypeScript (declared once) and input types as JSON Schema. */
class GraphqlTypes {
  readonly #used = new Set<string>();
  readonly #names = new Map<string, string>();
  readonly #out: string[] = [];

  unique(stem: string): string {
    let candidate = stem;
    for (let n = 2; this.#used.has(candidate); n++) candidate = `${stem}${n}`;
    this.#used.add(candidate);
    return candidate;
  }

  declarations(): string {
    return this.#out.join("\n");
  }

  argumentMember(arg: GraphQLArgument): string {
    const optional = !isNonNullType(arg.type) || arg.defaultValue !== undefined;
    const doc = [
      arg.description ?? "",
      arg.defaultValue !== undefined ? `@default ${JSON.stringify(arg.defaultValue)}` : "",
    ]
      .filter((p) => p !== "").join("\n");
    return `${jsDoc(doc, "  ")}  ${propertyName(arg.name)}${optional ? "?" : ""}: ${
      this.inputType(arg.type)
    };`;
  }

  inputType(type: GraphQLInputType): string {
    if (isNonNullType(type)) return this.#inputNonNull(type.ofType);
    return `${this.#inputNonNull(type)} | null`;
  }

  #inputNonNull(type: GraphQLInputType): string {
    if (isListType(type)) return `Array<${this.inputType(type.ofType)}>`;
    if (isNonNullType(type)) return this.#inputNonNull(type.ofType);
    return this.#named(type);
  }

  outputType(type: GraphQLOutputType): string {
    if (isNonNullType(type)) return this.#outputNonNull(type.ofType);
    return `${this.#outputNonNull(type)} | null`;
  }

  #outputNonNull(type: GraphQLOutputType): string {
    if (isListType(type)) return `Array<${this.outputType(type.ofType)}>`;
    if (isNonNullType(type)) return this.#outputNonNull(type.ofType);
    return this.#named(type);
  }

  #named(type: GraphQLNamedType): string {
    if (isScalarType(type)) {
      switch (type.name) {
        case "Int":
        case "Float":
          return "number";
        case "String":
          return "string";
        case "ID":
          return "string | number";
        case "Boolean":
          return "boolean";
        default:
          return "unknown";
      }
    }
    const known = this.#names.get(type.name);
    if (known !== undefined) return known;
    const typeName = this.unique(typeNameFor(type.name));
    this.#names.set(type.name, typeName);
    const doc = jsDoc(type.description ?? "", "");
    if (isEnumType(type)) {
      const values = type.getValues().map((v) => JSON.stringify(v.name)).join(" | ");
      this.#out.push(`${doc}export type ${typeName} = ${values || "never"};`);
    } else if (isInputObjectType(type)) {
      const fields = Object.values(type.getFields()).map((field) => {
        const optional = !isNonNullType(field.type) || field.defaultValue !== undefined;
        return `${jsDoc(field.description ?? "", "  ")}  ${propertyName(field.name)}${
          optional ? "?" : ""
        }: ${this.inputType(field.type)};`;
      });
      this.#out.push(`${doc}export interface ${typeName} {\n${fields.join("\n")}\n}`);
    } else if (isObjectType(type) || isInterfaceType(type)) {
      // Every field is optional: the selection decides which ones come back.
      const fields = Object.values(type.getFields()).map((field) =>
        `${jsDoc(field.description ?? "", "  ")}  ${propertyName(field.name)}?: ${
          this.outputType(field.type)
        };`
      );
      fields.push("  __typename?: string;");
      this.#out.push(`${doc}export interface ${typeName} {\n${fields.join("\n")}\n}`);
    } else if (isUnionType(type)) {
      const members = type.getTypes().map((member) => this.#named(member)).join(" | ");
      this.#out.push(`${doc}export type ${typeName} = ${members || "never"};`);
    }
    return typeName;
  }

  /** The arguments object as JSON Schema (draft 2020-12) for the validator. */
  inputSchema(args: readonly GraphQLArgument[], selectable: boolean): JsonSchema {
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

function propertyName(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
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
