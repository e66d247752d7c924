import assert from "node:assert/strict";
import { buildSchema, parse } from "graphql";
import { ToolCallError } from "../namespace.ts";
import { buildGraphqlCatalogue } from "./build_graphql_catalogue.ts";
import { graphqlDocument, rootFieldsOf } from "./graphql_document.ts";

const SCHEMA = buildSchema(`
  type Book { id: ID! title: String! }
  type Query { book(id: ID!): Book  secret: String  count: Int }
  type Mutation { addBook(title: String!): Book!  wipe: Boolean }
`);
const { operations } = buildGraphqlCatalogue(SCHEMA, { writes: "ask" });

function refused(tool: string, args: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(
    () => graphqlDocument(SCHEMA, operations.get(tool)!, args, tool),
    (error: unknown) =>
      error instanceof ToolCallError && error.kind === "InvalidToolInput" &&
      /\$select must be one selection set on the field's type/.test(error.message) &&
      pattern.test(error.message),
  );
}

Deno.test("graphqlDocument() sends one root field with variables and the script's own selection", () => {
  const built = graphqlDocument(SCHEMA, operations.get("addBook")!, {
    title: "T",
    $select: "id",
  }, "addBook");
  assert.deepEqual(built.variables, { title: "T" });
  assert.deepEqual(built.rootFields, [{ operation: "mutation", field: "addBook" }]);
  assert.equal(
    built.query.replace(/\s+/g, " ").trim(),
    "mutation ($title: String!) { addBook(title: $title) { id } }",
  );
  const scalar = graphqlDocument(SCHEMA, operations.get("count")!, {}, "count");
  assert.deepEqual(scalar.rootFields, [{ operation: "query", field: "count" }]);
});

Deno.test("graphqlDocument() refuses a $select that is not one selection set on the field's type", () => {
  refused("addBook", { title: "T", $select: "{ id } wipe: wipe" }, /Syntax Error/);
  refused("addBook", { title: "T", $select: "id } wipe { x" }, /Syntax Error|more than one/);
  refused("book", { id: "1", $select: "{ id } mutation { wipe }" }, /more than one selection set/);
  refused("book", { id: "1", $select: "{ id } { secret }" }, /more than one selection set/);
  refused("book", { id: "1", $select: "{ ...F } fragment F on Query { secret }" }, /more than one/);
  refused("book", { id: "1", $select: "secret" }, /Cannot query field "secret" on type "Book"/);
  refused("book", { id: "1", $select: "__schema { types { name } }" }, /__schema/);
  refused("book", { id: "1", $select: "{ id # }" }, /Syntax Error/);
  refused("book", { id: "1", $select: "id ".repeat(6_000) }, /tokens/);
});

Deno.test("rootFieldsOf() lists every root field, through inline fragments and spreads", () => {
  assert.deepEqual(
    rootFieldsOf(parse(`
      mutation { addBook(title: "x") { id } ... on Mutation { wipe } ...W }
      fragment W on Mutation { alias: wipe }
      query { secret }
    `)),
    [
      { operation: "mutation", field: "addBook" },
      { operation: "mutation", field: "wipe" },
      { operation: "mutation", field: "wipe" },
      { operation: "query", field: "secret" },
    ],
  );
});
