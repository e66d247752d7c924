import assert from "node:assert/strict";
import { typeCheck } from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import {
  cacheRenderedSchemasIn,
  renderSchemasInChildProcess,
  schemaToTypeScript,
  tidyDeclarations,
  typeNameFor,
} from "./schema_to_typescript.ts";

/** Renders with runs of whitespace squashed to one space, so assertions fit on a line. */
async function render(schema: Record<string, unknown>, typeName = "T"): Promise<string> {
  return (await schemaToTypeScript(schema, { typeName })).declarations.replace(/\s+/g, " ");
}

Deno.test("`typeNameFor()` makes PascalCase stems from tool names", () => {
  assert.equal(typeNameFor("get-sum"), "GetSum");
  assert.equal(typeNameFor("read_text_file"), "ReadTextFile");
  assert.equal(typeNameFor("3d"), "_3d");
  assert.equal(typeNameFor("--"), "Tool");
});

Deno.test("`tidyDeclarations()` ends members with semicolons and indents by depth", () => {
  const raw =
    'export interface A {\n/**\n * doc with "quote" {\n */\n"we{ird": string\nb?: ({\nk: "}"\n} | {\n' +
    "m: number[]\n})\nt: [string, number]\n}\nexport type B = (1 | 2)";
  assert.equal(
    tidyDeclarations(raw),
    'export interface A {\n  /**\n   * doc with "quote" {\n   */\n  "we{ird": string;\n  b?: ({\n    k: "}";\n' +
      "  } | {\n    m: number[];\n  });\n  t: [string, number];\n}\nexport type B = (1 | 2)",
  );
});

Deno.test("`schemaToTypeScript()` marks required and optional properties and writes JSDoc", async () => {
  const text = await render({
    type: "object",
    properties: {
      message: { type: "string", description: "Message to echo" },
      count: { type: "integer", default: 3 },
      url: { type: "string", format: "uri" },
    },
    required: ["message"],
  }, "EchoInput");
  assert.equal(
    text,
    "export interface EchoInput { /** * Message to echo */ message: string; " +
      "/** * @default 3 */ count?: number; /** * @format uri */ url?: string; }",
  );
});

Deno.test("`schemaToTypeScript()` names $defs after the root type and follows recursion", async () => {
  const text = await render({
    type: "object",
    properties: { tree: { $ref: "#/$defs/Node" }, other: { $ref: "#/definitions/my-def" } },
    $defs: {
      Node: {
        type: "object",
        properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      },
    },
    definitions: { "my-def": { enum: [1, 2] } },
  }, "NestedInput");
  assert.match(text, /tree\?: NestedInputNode;/);
  assert.match(text, /export interface NestedInputNode \{ children\?: NestedInputNode\[\]; \}/);
  assert.match(text, /export type NestedInputMyDef = \(1 \| 2\)/);
});

Deno.test("`schemaToTypeScript()` renders allOf, anyOf, oneOf, enum and const", async () => {
  const text = await render({
    type: "object",
    properties: {
      both: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", properties: { b: { type: "number" } } },
        ],
      },
      either: { anyOf: [{ type: "string" }, { type: "null" }] },
      shape: {
        oneOf: [
          { type: "object", properties: { kind: { const: "circle" } }, required: ["kind"] },
          { type: "object", properties: { kind: { const: "square" } }, required: ["kind"] },
        ],
      },
      mode: { type: "string", enum: ["fast", "slow"] },
      version: { const: 2 },
    },
  });
  assert.match(text, /both\?: \(\{ a\?: string; \} & \{ b\?: number; \}\);/);
  assert.match(text, /either\?: \(string \| null\);/);
  assert.match(text, /shape\?: \(\{ kind: "circle"; \} \| \{ kind: "square"; \}\);/);
  assert.match(text, /mode\?: \("fast" \| "slow"\);/);
  assert.match(text, /version\?: 2;/);
});

Deno.test("`schemaToTypeScript()` renders prefixItems and items arrays as tuples", async () => {
  const text = await render({
    type: "object",
    properties: {
      point: {
        type: "array",
        prefixItems: [{ type: "number" }, { type: "number" }],
        items: false,
        minItems: 2,
      },
      pair: {
        type: "array",
        items: [{ type: "string" }, { type: "boolean" }],
        minItems: 2,
        maxItems: 2,
      },
      head: {
        type: "array",
        prefixItems: [{ type: "string" }],
        items: { type: "number" },
        minItems: 1,
      },
    },
  });
  assert.match(text, /point\?: \[number, number\]/);
  assert.match(text, /pair\?: \[string, boolean\]/);
  assert.match(text, /head\?: \[string, \.\.\.\(number\)\[\]\]/);
});

Deno.test("`schemaToTypeScript()` keeps minItems arrays plain arrays, with the bound in JSDoc", async () => {
  const text = await render({
    type: "object",
    properties: { paths: { type: "array", items: { type: "string" }, minItems: 1 } },
    required: ["paths"],
  });
  assert.match(text, /paths: string\[\];/);
  assert.match(text, /At least 1 item\./);
});

Deno.test("`schemaToTypeScript()` keeps nested objects as nested types and indexes only open objects", async () => {
  const text = await render({
    type: "object",
    properties: {
      limits: {
        type: "object",
        properties: { inner: { type: "object", properties: { n: { type: "number" } } } },
      },
      open: { type: "object" },
      counts: { type: "object", additionalProperties: { type: "number" } },
      closed: {
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: false,
      },
    },
  });
  assert.match(text, /limits\?: \{ inner\?: \{ n\?: number; \}; \};/);
  assert.match(text, /open\?: \{ \[k: string\]: unknown; \};/);
  assert.match(text, /counts\?: \{ \[k: string\]: number; \};/);
  assert.match(text, /closed\?: \{ a\?: string; \};/);
  assert.doesNotMatch(text, /Record<string, unknown>/);
});

Deno.test("`schemaToTypeScript()` ignores titles, $id and generator directives from upstream", async () => {
  const text = await render({
    $id: "https://example.com/root",
    title: "Root",
    type: "object",
    properties: {
      message: { title: "Message", type: "string" },
      evil: { tsType: "string }\ndeclare const evil: 1; interface X {" },
      kind: { type: "string", enum: ["a"], tsEnumNames: ["A"] },
    },
  }, "SafeInput");
  assert.match(text, /^export interface SafeInput \{/);
  assert.doesNotMatch(text, /Message|Root|evil: 1|enum/);
  assert.match(text, /evil\?: unknown/);
});

Deno.test("`schemaToTypeScript()` types an external $ref as unknown without fetching it", async () => {
  const text = await render({
    type: "object",
    properties: { remote: { $ref: "https://example.com/schema.json" } },
  });
  assert.match(
    text,
    /\(unresolved reference "https:\/\/example.com\/schema.json"\) \*\/ remote\?: unknown;/,
  );
});

Deno.test("`schemaToTypeScript()` rejects a dangling local $ref", async () => {
  await assert.rejects(() =>
    render({ type: "object", properties: { a: { $ref: "#/$defs/Nope" } } })
  );
});

Deno.test("`schemaToTypeScript()` output type-checks and rejects wrong values", async () => {
  const input = await schemaToTypeScript({
    type: "object",
    $defs: {
      Node: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    },
    properties: {
      tree: { $ref: "#/$defs/Node" },
      point: {
        type: "array",
        prefixItems: [{ type: "number" }, { type: "number" }],
        minItems: 2,
        items: false,
      },
      mode: { enum: ["fast", "slow"] },
      "fancy-name": { type: "string", description: "has */ inside" },
      counts: {
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: { type: "number" },
      },
    },
    required: ["tree", "point"],
  }, { typeName: "NestedInput" });
  const source = `declare namespace fixture {\n${input.declarations}\n}\n` +
    `const ok: fixture.NestedInput = { tree: { label: "x" }, point: [1, 2], mode: "slow", "fancy-name": "f", counts: { a: "s", b: 2 } };\n` +
    `// @ts-expect-error the tree's label is required\nconst noLabel: fixture.NestedInput = { tree: {}, point: [1, 2] };\n` +
    `// @ts-expect-error the mode is an enum\nconst badMode: fixture.NestedInput = { tree: { label: "x" }, point: [1, 2], mode: "warp" };\n` +
    `// @ts-expect-error the point is a pair\nconst badPoint: fixture.NestedInput = { tree: { label: "x" }, point: [1] };\n` +
    `export { badMode, badPoint, noLabel, ok };\n`;
  const result = await typeCheck(source);
  assert.ok(result.ok, `${result.output}\n${source}`);
});

Deno.test("rendered schemas are kept on disk and read back instead of rendering again", async () => {
  const dir = await Deno.makeTempDir();
  const schema = { type: "object", properties: { message: { type: "string" } } };
  try {
    cacheRenderedSchemasIn(dir);
    const first = await schemaToTypeScript(schema, { typeName: "EchoInput" });
    assert.equal(first.declarations, "export interface EchoInput {\n  message?: string;\n}");
    const entries = [...Deno.readDirSync(dir)].map((entry) => entry.name);
    assert.equal(entries.length, 1);
    assert.match(entries[0]!, /^[0-9a-f]{64}\.ts$/);
    assert.equal(Deno.readTextFileSync(`${dir}/${entries[0]}`), first.declarations);
    // The entry is what a second rendering answers (proved by changing it on disk).
    Deno.writeTextFileSync(`${dir}/${entries[0]}`, "export interface EchoInput {}");
    assert.deepEqual(await schemaToTypeScript(schema, { typeName: "EchoInput" }), {
      typeName: "EchoInput",
      declarations: "export interface EchoInput {}",
    });
    // Another type name is another entry.
    const other = await schemaToTypeScript(schema, { typeName: "PingInput" });
    assert.equal(other.declarations, "export interface PingInput {\n  message?: string;\n}");
    assert.equal([...Deno.readDirSync(dir)].length, 2);
  } finally {
    cacheRenderedSchemasIn(null);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rendering in the server's child process gives the same declarations and errors as in process", async () => {
  const schema = {
    type: "object",
    properties: { message: { type: "string", description: "What to say" }, n: { type: "integer" } },
    required: ["message"],
  };
  const dangling = { type: "object", properties: { a: { $ref: "#/$defs/Nope" } } };
  const here = await schemaToTypeScript(schema, { typeName: "SayInput" });
  const hereError = await schemaToTypeScript(dangling, { typeName: "D" }).then(
    () => assert.fail("a dangling $ref renders"),
    (error: Error) => error.message,
  );
  const stop = renderSchemasInChildProcess({ idleMs: 60_000 });
  try {
    assert.deepEqual(await schemaToTypeScript(schema, { typeName: "SayInput" }), here);
    await assert.rejects(
      () => schemaToTypeScript(dangling, { typeName: "D" }),
      (error: Error) => error.message === hereError,
    );
  } finally {
    await stop();
  }
});
