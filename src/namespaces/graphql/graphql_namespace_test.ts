import assert from "node:assert/strict";
import { callError } from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { join } from "node:path";
import { startLibraryServer } from "../../../test/fixtures/graphql/library_graphql_server.ts";
import type { ToolCallOptions } from "../namespace.ts";
import { GraphqlNamespace } from "./graphql_namespace.ts";

function callOptions(): ToolCallOptions {
  return { signal: new AbortController().signal, callTimeoutMs: 30_000, callMaxMs: 60_000 };
}

function library(url: string) {
  return new GraphqlNamespace("library", {
    graphql: url,
    headers: { "x-test": "1" },
    include: [],
    exclude: [],
    writes: "ask",
    disabled: false,
  });
}

Deno.test("GraphqlNamespace introspects a real server: one typed tool per query and mutation field", async () => {
  const server = startLibraryServer();
  try {
    const ns = library(server.url);
    await ns.start();
    assert.deepEqual(ns.status(), { state: "ready" });
    const catalogue = ns.catalogue();
    assert.deepEqual(catalogue.tools.map((t) => t.originalName), [
      "books",
      "book",
      "items",
      "broken",
      "addBook",
    ]);
    const addBook = catalogue.tools.find((t) => t.originalName === "addBook")!;
    assert.equal(addBook.annotations?.gatewayDefaultAction, "ask");
    assert.equal(catalogue.tools[0]?.annotations?.gatewayDefaultAction, undefined);
    assert.match(
      catalogue.declarations,
      /export type Genre = "FICTION" \| "HISTORY" \| "SCIENCE";/,
    );
    assert.match(catalogue.declarations, /export interface NewBook \{[^}]*title: string;/);
    assert.match(catalogue.declarations, /export type Item = Book \| Magazine;/);
    // The declarations type-check as scripts see them.
    const dir = await Deno.makeTempDir();
    try {
      const file = join(dir, "library.ts");
      await Deno.writeTextFile(
        file,
        `declare namespace library {\n${catalogue.declarations}\n}\nconst b: library.BooksOutput = [{ title: "x", author: { name: "y" } }];\nexport { b };\n`,
      );
      const check = await new Deno.Command(Deno.execPath(), {
        args: ["check", "--quiet", "--no-config", file],
        stderr: "piped",
      }).output();
      assert.equal(new TextDecoder().decode(check.stderr), "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    await ns.stop();
  } finally {
    await server.stop();
  }
});

Deno.test("GraphqlNamespace calls fields with variables, default or own selection, and reports errors", async (t) => {
  const server = startLibraryServer();
  try {
    const ns = library(server.url);
    await ns.start();
    await t.step("a query answers the field's data with the default selection", async () => {
      const { value } = await ns.callTool("books", { genre: "HISTORY" }, callOptions());
      assert.deepEqual(value, [{
        id: "2",
        title: "SPQR",
        year: 2015,
        genre: "HISTORY",
        author: { name: "Mary Beard", born: 1955 },
      }]);
    });
    await t.step("$select sends the script's own selection", async () => {
      const { value } = await ns.callTool("book", {
        id: "1",
        $select: "{ title author { books { title } } }",
      }, callOptions());
      assert.deepEqual(value, { title: "Dune", author: { books: [{ title: "Dune" }] } });
      const items = await ns.callTool("items", {}, callOptions());
      assert.deepEqual((items.value as { __typename: string }[]).map((i) => i.__typename), [
        "Book",
        "Magazine",
      ]);
    });
    await t.step("a mutation takes an input object", async () => {
      const { value } = await ns.callTool(
        "addBook",
        {
          input: { title: "Cosmos", authorName: "Carl Sagan", genre: "SCIENCE" },
          $select: "id title genre",
        },
        callOptions(),
      );
      assert.deepEqual(value, { id: "3", title: "Cosmos", genre: "SCIENCE" });
    });
    await t.step("bad arguments fail before sending", async () => {
      const before = server.requests();
      const error = await callError(ns.callTool("books", { genre: "POETRY" }, callOptions()));
      assert.equal(error.kind, "InvalidToolInput");
      assert.match(error.message, /"\/genre" must be one of "FICTION", "HISTORY", "SCIENCE"/);
      const missing = await callError(
        ns.callTool("addBook", { input: { title: "x" } }, callOptions()),
      );
      assert.match(missing.message, /"\/input\/authorName" is required/);
      assert.equal(server.requests(), before);
    });
    await t.step("GraphQL errors are a ToolError with their messages", async () => {
      const error = await callError(ns.callTool("broken", {}, callOptions()));
      assert.equal(error.kind, "ToolError");
      assert.match(
        error.message,
        /"library\.broken" \(GraphQL query broken\) answered with errors: the broken field always fails/,
      );
    });
  } finally {
    await server.stop();
  }
});

Deno.test("GraphqlNamespace fails with the reason when the endpoint does not answer introspection", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("nope", { status: 500 }),
  );
  try {
    const ns = library(`http://127.0.0.1:${server.addr.port}/graphql`);
    await ns.start();
    const status = ns.status();
    assert.equal(status.state, "failed");
    assert.match(
      status.state === "failed" ? status.reason : "",
      /Cannot read the GraphQL schema of .*answered 500 Internal Server Error: nope/,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("GraphqlNamespace keeps only the included fields and notes the rest", async () => {
  const server = startLibraryServer();
  try {
    const ns = new GraphqlNamespace("library", {
      graphql: server.url,
      headers: {},
      include: ["book*", "mutation:*"],
      exclude: ["books"],
      writes: "allow",
      disabled: false,
    });
    await ns.start();
    assert.deepEqual(ns.catalogue().tools.map((t) => t.originalName), ["book", "addBook"]);
    assert.deepEqual(ns.catalogue().warnings, ['left out 3 fields by "include"/"exclude"']);
    assert.equal(ns.catalogue().tools[1]?.annotations?.gatewayDefaultAction, undefined);
  } finally {
    await server.stop();
  }
});
