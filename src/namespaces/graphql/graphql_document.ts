/**
 * The one GraphQL document a call of a root field sends, built as a syntax tree and printed,
 * never spliced from text: a script's `$select` is parsed on its own as one selection set and
 * validated against the schema on the field's own type, so it can add no root field, operation
 * or fragment. The root fields are read back from the tree that is sent, for the policy gate.
 * @module
 */

import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  OperationTypeNode,
  parse,
  parseType,
  print,
  type SelectionSetNode,
  validate,
  type VariableDefinitionNode,
} from "graphql";
import { ToolCallError } from "../namespace.ts";
import { type GraphqlOperation, SELECT_KEY } from "./build_graphql_catalogue.ts";

/** Most tokens a `$select` may have: a selection set, not a program. */
const MAX_SELECT_TOKENS = 5_000;
/** Validation messages kept in one error. */
const MAX_PROBLEMS = 3;

/** One call's document: the text sent, its variables, and the root fields it runs. */
export interface GraphqlDocument {
  /** The printed document, exactly as sent. */
  query: string;
  variables: Record<string, unknown>;
  /** Root fields of the document sent, with the operation type they belong to. */
  rootFields: Array<{ operation: "query" | "mutation"; field: string }>;
}

/**
 * Builds the document of one call of `operation` with validated `args` (its arguments, plus
 * `$select`): `query`/`mutation` with one variable per argument given and the field selected by
 * `$select` or the default selection. Throws `InvalidToolInput` naming `$select` when it is not
 * one selection set valid on the field's type in `schema`.
 */
export function graphqlDocument(
  schema: GraphQLSchema,
  operation: GraphqlOperation,
  args: Record<string, unknown>,
  what: string,
): GraphqlDocument {
  const variables: Record<string, unknown> = {};
  const variableDefinitions: VariableDefinitionNode[] = [];
  const fieldArguments: ArgumentNode[] = [];
  for (const arg of operation.field.args) {
    if (args[arg.name] === undefined) continue;
    variables[arg.name] = args[arg.name];
    const variable = { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: arg.name } } as const;
    variableDefinitions.push({
      kind: Kind.VARIABLE_DEFINITION,
      variable,
      type: parseType(String(arg.type)),
    });
    fieldArguments.push({
      kind: Kind.ARGUMENT,
      name: { kind: Kind.NAME, value: arg.name },
      value: variable,
    });
  }
  const own = typeof args[SELECT_KEY] === "string" ? (args[SELECT_KEY] as string).trim() : "";
  const selectionText = own === "" ? operation.defaultSelection : own;
  const selectionSet = selectionText === ""
    ? undefined
    : parseSelectionSet(selectionText, operation, what);
  const field: FieldNode = {
    kind: Kind.FIELD,
    name: { kind: Kind.NAME, value: operation.field.name },
    arguments: fieldArguments,
    ...(selectionSet ? { selectionSet } : {}),
  };
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [{
      kind: Kind.OPERATION_DEFINITION,
      operation: operation.operation === "mutation"
        ? OperationTypeNode.MUTATION
        : OperationTypeNode.QUERY,
      variableDefinitions,
      selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
    }],
  };
  if (own !== "") {
    // The default selection is built from the schema; a script's own is checked against it.
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw selectProblem(
        what,
        operation,
        problems.slice(0, MAX_PROBLEMS).map((p) => p.message).join("; "),
      );
    }
  }
  return { query: print(document), variables, rootFields: rootFieldsOf(document) };
}

/**
 * The root fields of a document's operations, as they will run (fragments spread at the root
 * are followed), for the policy gate to judge each.
 */
export function rootFieldsOf(
  document: DocumentNode,
): Array<{ operation: "query" | "mutation"; field: string }> {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition.selectionSet);
    }
  }
  const found: Array<{ operation: "query" | "mutation"; field: string }> = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    // A subscription is never built by the gateway; judged as a mutation, the stricter kind.
    const operation = definition.operation === OperationTypeNode.QUERY ? "query" : "mutation";
    const seen = new Set<string>();
    const visit = (set: SelectionSetNode): void => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          found.push({ operation, field: selection.name.value });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          visit(selection.selectionSet);
        } else {
          const name = selection.name.value;
          const spread = fragments.get(name);
          if (spread !== undefined && !seen.has(name)) {
            seen.add(name);
            visit(spread);
          }
        }
      }
    };
    visit(definition.selectionSet);
  }
  return found;
}

/**
 * Parses `$select` on its own: `{ id title }` or the bare `id title`. The text must be exactly
 * one anonymous selection set (no second operation, fragment or name around it).
 */
function parseSelectionSet(
  text: string,
  operation: GraphqlOperation,
  what: string,
): SelectionSetNode {
  let parsed: DocumentNode;
  try {
    parsed = parse(text.startsWith("{") ? text : `{${text}\n}`, {
      noLocation: true,
      maxTokens: MAX_SELECT_TOKENS,
    });
  } catch (error) {
    throw selectProblem(
      what,
      operation,
      error instanceof GraphQLError ? error.message : String(error),
    );
  }
  const [only, ...rest] = parsed.definitions;
  if (
    only === undefined || rest.length > 0 || only.kind !== Kind.OPERATION_DEFINITION ||
    only.operation !== OperationTypeNode.QUERY || only.name !== undefined ||
    (only.variableDefinitions?.length ?? 0) > 0 || (only.directives?.length ?? 0) > 0
  ) {
    throw selectProblem(
      what,
      operation,
      "it is more than one selection set (a second operation, fragment or field outside the braces)",
    );
  }
  return only.selectionSet;
}

function selectProblem(what: string, operation: GraphqlOperation, problem: string): ToolCallError {
  return new ToolCallError(
    "InvalidToolInput",
    `${what}: ${SELECT_KEY} must be one selection set on the field's type ${
      String(operation.field.type)
    }, like "{ ${
      operation.defaultSelection.replace(/^\{\s*|\s*\}$/g, "").split(" ")[0] ?? "id"
    } }": ${problem}`,
  );
}
