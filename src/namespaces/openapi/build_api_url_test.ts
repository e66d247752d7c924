import assert from "node:assert/strict";
import { ToolCallError } from "../namespace.ts";
import type { ApiOperation } from "./api_operations.ts";
import { buildUrl } from "./build_api_url.ts";

function operation(overrides: Partial<ApiOperation>): ApiOperation {
  return {
    name: "op",
    method: "get",
    path: "/items",
    summary: "",
    description: "",
    tags: [],
    deprecated: false,
    parameters: [],
    body: undefined,
    response: {},
    security: [],
    ...overrides,
  };
}

Deno.test("buildUrl() fills path parameters and serialises query styles", () => {
  const op = operation({
    path: "/repos/{owner}/{repo}",
    parameters: [
      {
        name: "owner",
        key: "owner",
        in: "path",
        required: true,
        schema: {},
        description: "",
        style: "simple",
        explode: false,
      },
      {
        name: "repo",
        key: "repo",
        in: "path",
        required: true,
        schema: {},
        description: "",
        style: "simple",
        explode: false,
      },
      {
        name: "tag",
        key: "tag",
        in: "query",
        required: false,
        schema: {},
        description: "",
        style: "form",
        explode: true,
      },
      {
        name: "ids",
        key: "ids",
        in: "query",
        required: false,
        schema: {},
        description: "",
        style: "form",
        explode: false,
      },
      {
        name: "filter",
        key: "filter",
        in: "query",
        required: false,
        schema: {},
        description: "",
        style: "deepObject",
        explode: true,
      },
    ],
  });
  const url = buildUrl("http://h/api/", op, {
    owner: "deno land",
    repo: "a/b",
    tag: ["x", "y"],
    ids: [1, 2],
    filter: { state: "open" },
  });
  assert.equal(
    url,
    "http://h/api/repos/deno%20land/a%2Fb?tag=x&tag=y&ids=1%2C2&filter%5Bstate%5D=open",
  );
});

Deno.test("buildUrl() refuses path parameters that would send the request to another path", () => {
  const path = (name: string) => ({
    name,
    key: name,
    in: "path" as const,
    required: true,
    schema: {},
    description: "",
    style: "simple",
    explode: false,
  });
  const op = operation({
    method: "delete",
    path: "/projects/{p}/items/{id}.json",
    parameters: [path("p"), path("id")],
  });
  const refused = (args: Record<string, unknown>, pattern: RegExp) =>
    assert.throws(
      () => buildUrl("http://h/api", op, args),
      (error: unknown) =>
        error instanceof ToolCallError && error.kind === "InvalidToolInput" &&
        pattern.test(error.message),
    );
  refused({ p: "victim", id: ".." }, /path parameter "id" is "\.\."/);
  refused({ p: "..", id: "1" }, /path parameter "p" is "\.\."/);
  refused({ p: ".", id: "1" }, /path parameter "p"/);
  refused({ p: "a/../b", id: "1" }, /path parameter "p"/);
  refused({ p: "a\\..", id: "1" }, /path parameter "p"/);
  refused({ p: "", id: "1" }, /path parameter "p" is empty/);
  refused({ p: "a" }, /path parameter "id" is missing/);
  // `/`, `%2e` and `?` stay inside their one segment, encoded; a dot inside a name is fine.
  assert.equal(
    buildUrl("http://h/api/", op, { p: "a/b", id: "%2e%2e?x" }),
    "http://h/api/projects/a%2Fb/items/%252e%252e%3Fx.json",
  );
  assert.equal(
    buildUrl("http://h", op, { p: "v1.2", id: "..x" }),
    "http://h/projects/v1.2/items/..x.json",
  );
});
