import assert from "node:assert/strict";
import { typeCheck } from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { declaration, docOf, type NamedSchemas, SchemaTypes, typeNameFor } from "./schema_types.ts";

/** `$defs` of `schema` as named types `<typeName><Key>`, as the MCP kind names them. */
function defs(schema: Record<string, unknown>, typeName: string): NamedSchemas[] {
  return ["$defs", "definitions"].map((keyword) => ({
    prefix: `#/${keyword}/`,
    schemas: (schema[keyword] ?? {}) as Record<string, unknown>,
    stem: (key: string) => `${typeName}${typeNameFor(key)}`,
  }));
}

/** Declares `schema` as `typeName` and every named type it reaches, as one text. */
function render(schema: Record<string, unknown>, typeName = "T"): string {
  const types = new SchemaTypes();
  const root = types.document(schema, defs(schema, typeName), { self: typeName });
  return [root.declaration(typeName, schema), types.declarations()].filter((d) => d !== "")
    .join("\n");
}

/** The type of one property `p` of an object schema, squashed to one line. */
function propertyType(schema: unknown): string {
  const text = new SchemaTypes().document({}).typeOf({ type: "object", properties: { p: schema } });
  return text.replace(/\s+/g, " ").replace(/^\{ (\/\*\*.*?\*\/ )?p\?: /, "").replace(/; \}$/, "");
}

Deno.test("`typeNameFor()` makes PascalCase stems from tool names", () => {
  assert.equal(typeNameFor("get-sum"), "GetSum");
  assert.equal(typeNameFor("read_text_file"), "ReadTextFile");
  assert.equal(typeNameFor("3d"), "_3d");
  assert.equal(typeNameFor("--"), "Tool");
});

Deno.test("an object schema becomes an interface with required and optional members and JSDoc", () => {
  const text = render({
    type: "object",
    properties: {
      message: { type: "string", description: "Message to echo" },
      count: { type: "integer", default: 3 },
      url: { type: "string", format: "uri", description: "Where\nit goes" },
    },
    required: ["message"],
  }, "EchoInput");
  assert.equal(
    text,
    [
      "export interface EchoInput {",
      "  /** Message to echo */",
      "  message: string;",
      "  /** @default 3 */",
      "  count?: number;",
      "  /**",
      "   * Where",
      "   * it goes",
      "   * @format uri",
      "   */",
      "  url?: string;",
      "}",
    ].join("\n"),
  );
});

Deno.test("anything but one object type becomes a type alias", () => {
  assert.equal(render({ type: "string" }), "export type T = string;");
  assert.equal(
    render({
      anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "null" }],
    }),
    "export type T = {\n  a?: string;\n} | null;",
  );
  assert.equal(
    declaration("T", "{ [key: string]: unknown }"),
    "export type T = { [key: string]: unknown };",
  );
});

Deno.test("$defs are named after the root type, declared once, and may recurse", () => {
  const text = render({
    type: "object",
    properties: {
      tree: { $ref: "#/$defs/Node" },
      forest: { type: "array", items: { $ref: "#/$defs/Node" } },
      other: { $ref: "#/definitions/my-def" },
      self: { $ref: "#" },
    },
    $defs: {
      Node: {
        type: "object",
        description: "A tree node",
        properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      },
      Unused: { type: "string" },
    },
    definitions: { "my-def": { enum: [1, 2] } },
  }, "NestedInput");
  assert.match(text, /tree\?: NestedInputNode;/);
  assert.match(text, /forest\?: NestedInputNode\[\];/);
  assert.match(text, /self\?: NestedInput;/);
  assert.match(
    text,
    /\/\*\* A tree node \*\/\nexport interface NestedInputNode \{\n {2}children\?: NestedInputNode\[\];\n\}/,
  );
  assert.match(text, /export type NestedInputMyDef = 1 \| 2;/);
  assert.equal(text.match(/export interface NestedInputNode/g)?.length, 1, "declared once");
  assert.doesNotMatch(text, /Unused/, "a definition nothing reaches is not declared");
});

Deno.test("named schemas of one document are declared once across many roots", () => {
  const document = {
    components: {
      schemas: { "simple-user": { type: "object", properties: { login: { type: "string" } } } },
    },
  };
  const types = new SchemaTypes(["SimpleUser"]);
  const api = types.document(document, [
    { prefix: "#/components/schemas/", schemas: document.components.schemas, stem: typeNameFor },
  ]);
  const user = { $ref: "#/components/schemas/simple-user" };
  assert.equal(api.typeOf(user), "SimpleUser2", "a reserved name is not given again");
  assert.equal(api.typeOf({ type: "array", items: user }), "SimpleUser2[]");
  assert.equal(types.declarations(), "export interface SimpleUser2 {\n  login?: string;\n}");
  assert.equal(api.typeOf(user), "SimpleUser2");
  assert.equal(types.declarations(), "", "already declared");
});

Deno.test("allOf, anyOf, oneOf, enum, const and nullable render as TypeScript", () => {
  assert.equal(
    propertyType({
      allOf: [
        { type: "object", properties: { a: { type: "string" } } },
        { type: "object", properties: { b: { type: "number" } } },
      ],
    }),
    "{ a?: string; } & { b?: number; }",
  );
  assert.equal(propertyType({ anyOf: [{ type: "string" }, { type: "null" }] }), "string | null");
  assert.equal(
    propertyType({
      oneOf: [
        { type: "object", properties: { kind: { const: "circle" } }, required: ["kind"] },
        { type: "object", properties: { kind: { const: "square" } }, required: ["kind"] },
      ],
    }),
    '{ kind: "circle"; } | { kind: "square"; }',
  );
  assert.equal(propertyType({ type: "string", enum: ["fast", "slow", "fast"] }), '"fast" | "slow"');
  assert.equal(propertyType({ const: 2 }), "2");
  assert.equal(propertyType({ enum: ["a", null] }), '"a" | null');
  assert.equal(propertyType({ type: ["string", "null"] }), "string | null");
  assert.equal(propertyType({ type: "string", nullable: true }), "string | null");
  assert.equal(propertyType({ $ref: "#/nowhere", nullable: true }), "unknown");
  assert.equal(propertyType({ const: { an: "object" } }), "unknown");
  assert.equal(propertyType({ const: 1e400 }), "number", "no Infinity literal");
  assert.equal(propertyType(true), "unknown");
  assert.equal(propertyType(false), "never");
});

Deno.test("prefixItems and items arrays render as tuples, with a rest element when typed", () => {
  assert.equal(
    propertyType({
      type: "array",
      prefixItems: [{ type: "number" }, { type: "number" }],
      items: false,
    }),
    "[number, number]",
  );
  assert.equal(
    propertyType({ type: "array", items: [{ type: "string" }, { type: "boolean" }] }),
    "[string, boolean]",
  );
  assert.equal(
    propertyType({ type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }),
    "[string, ...number[]]",
  );
  assert.equal(
    propertyType({
      type: "array",
      items: [{ type: "string" }],
      additionalItems: { anyOf: [{ type: "string" }, { type: "number" }] },
    }),
    "[string, ...Array<string | number>]",
  );
});

Deno.test("array bounds stay plain arrays, with the bounds in JSDoc", () => {
  const text = render({
    type: "object",
    properties: {
      paths: { type: "array", items: { type: "string" }, minItems: 1 },
      pair: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 },
      few: { type: "array", items: { type: "string" }, maxItems: 3 },
    },
    required: ["paths"],
  });
  assert.match(text, /\/\*\* At least 1 item\. \*\/\n {2}paths: string\[\];/);
  assert.match(text, /\/\*\* 1 to 2 items\. \*\/\n {2}pair\?: string\[\];/);
  assert.match(text, /\/\*\* At most 3 items\. \*\/\n {2}few\?: string\[\];/);
});

Deno.test("objects: nested types, index signatures only for open keys, fitting the members", () => {
  assert.equal(
    propertyType({
      type: "object",
      properties: { inner: { type: "object", properties: { n: { type: "number" } } } },
    }),
    "{ inner?: { n?: number; }; }",
  );
  assert.equal(propertyType({ type: "object" }), "{ [key: string]: unknown }");
  assert.equal(
    propertyType({ type: "object", additionalProperties: false }),
    "Record<string, never>",
  );
  assert.equal(
    propertyType({ type: "object", additionalProperties: { type: "number" } }),
    "{ [key: string]: number; }",
  );
  assert.equal(
    propertyType({ type: "object", patternProperties: { "^x-": { type: "string" } } }),
    "{ [key: string]: string; }",
  );
  assert.equal(
    propertyType({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: { type: "number" },
    }),
    "{ a?: string; [key: string]: number | string | undefined; }",
  );
  assert.equal(
    propertyType({ type: "object", properties: { a: { type: "string" } } }),
    "{ a?: string; }",
    "no index signature when nothing says other keys may come",
  );
});

Deno.test("upstream text cannot inject TypeScript: names quoted, docs escaped, directives ignored", () => {
  const text = render({
    type: "object",
    title: "Root",
    properties: {
      "fancy-name": { type: "string", description: "has */ declare const x: 1; /* inside" },
      evil: { tsType: "string }\ndeclare const evil: 1; interface X {" },
      kind: { type: "string", enum: ['a"; declare const y: 1; type Z = "'], tsEnumNames: ["A"] },
    },
    $defs: { "x; declare const z: 1": { type: "string" } },
  }, "SafeInput");
  assert.match(
    text,
    /^\/\*\* Root \*\/\nexport interface SafeInput \{/,
    "a title is documentation",
  );
  assert.match(text, /"fancy-name"\?: string;/);
  assert.match(text, /\*\\\/ declare const x/);
  assert.match(text, /evil\?: unknown;/);
  assert.doesNotMatch(text, /^\s*(declare|interface X|type Z)/m);
  assert.doesNotMatch(text, /(interface|type) Root/, "never a name");
});

Deno.test("a $ref that cannot be followed is typed unknown and noted, never fetched", () => {
  const types = new SchemaTypes();
  const root = types.document({ $defs: {} });
  assert.equal(root.typeOf({ $ref: "https://example.com/schema.json" }), "unknown");
  assert.equal(root.typeOf({ $ref: "#/$defs/Nope" }), "unknown");
  assert.equal(root.typeOf({ $ref: "#/$defs/%E0%A4%A" }), "unknown", "a malformed pointer");
  assert.deepEqual([...root.notes.danglingRefs], [
    "https://example.com/schema.json",
    "#/$defs/Nope",
    "#/$defs/%E0%A4%A",
  ]);
});

Deno.test("an inlined pointer cycle becomes unknown; a deep schema ends as unknown", () => {
  const document = { a: { type: "object", properties: { next: { $ref: "#/a" } } } };
  const text = new SchemaTypes().document(document).typeOf({ $ref: "#/a" });
  assert.equal(text, "{\n  next?: unknown;\n}");
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 10_000; i++) deep = { type: "array", items: deep };
  assert.match(new SchemaTypes().document({}).typeOf(deep), /unknown/);
});

Deno.test("`docOf()` keeps a title only when it says more than the property's name", () => {
  assert.equal(docOf({ title: "File Path", type: "string" }, "file_path"), "");
  assert.equal(docOf({ title: "Where to write", type: "string" }, "file_path"), "Where to write");
  assert.equal(docOf({ title: "Simple User" }), "Simple User");
  assert.equal(docOf({ description: "d", title: "t", deprecated: true }), "d\n@deprecated");
});

Deno.test("the declarations type-check and refuse wrong values", async () => {
  const input = render({
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
  }, "NestedInput");
  const source = `declare namespace fixture {\n${input}\n}\n` +
    `const ok: fixture.NestedInput = { tree: { label: "x" }, point: [1, 2], mode: "slow", "fancy-name": "f", counts: { a: "s", b: 2 } };\n` +
    `// @ts-expect-error the tree's label is required\nconst noLabel: fixture.NestedInput = { tree: {}, point: [1, 2] };\n` +
    `// @ts-expect-error the mode is an enum\nconst badMode: fixture.NestedInput = { tree: { label: "x" }, point: [1, 2], mode: "warp" };\n` +
    `// @ts-expect-error the point is a pair\nconst badPoint: fixture.NestedInput = { tree: { label: "x" }, point: [1] };\n` +
    `export { badMode, badPoint, noLabel, ok };\n`;
  const result = await typeCheck(source);
  assert.ok(result.ok, `${result.output}\n${source}`);
});
