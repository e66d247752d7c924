import assert from "node:assert/strict";
import { ApiSchemaTypes } from "./api_schema_types.ts";

const DOCUMENT = {
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {},
  components: {
    schemas: {
      "simple-user": {
        type: "object",
        description: "A user.",
        required: ["login"],
        properties: {
          login: { type: "string" },
          "avatar-url": { type: "string", format: "uri", nullable: true },
          manager: { $ref: "#/components/schemas/simple-user" },
        },
      },
      Shape: {
        oneOf: [{ $ref: "#/components/schemas/Circle" }, { $ref: "#/components/schemas/Square" }],
      },
      Circle: {
        type: "object",
        properties: { r: { type: "number", minimum: 0, exclusiveMinimum: true } },
      },
      Square: {
        type: "object",
        properties: { side: { type: "integer" } },
        additionalProperties: true,
      },
      Labels: { type: "object", additionalProperties: { type: "string" } },
    },
  },
};

Deno.test("ApiSchemaTypes.typeOf() renders named schemas once, by name, with docs and nullability", () => {
  const types = new ApiSchemaTypes(DOCUMENT);
  assert.equal(
    types.typeOf({ type: "array", items: { $ref: "#/components/schemas/simple-user" } }),
    "SimpleUser[]",
  );
  assert.equal(types.typeOf({ enum: ["a", "b"], nullable: true }), '"a" | "b" | null');
  assert.equal(types.typeOf({ $ref: "#/components/schemas/Shape" }), "Shape");
  assert.equal(
    types.typeOf({
      allOf: [{ $ref: "#/components/schemas/Circle" }, {
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
      }],
    }),
    "Circle & {\n  id: number;\n}",
  );
  assert.equal(types.typeOf({ $ref: "#/components/schemas/Labels" }), "Labels");
  const declarations = types.declarations();
  assert.equal(
    declarations,
    [
      "/** A user. */",
      "export interface SimpleUser {",
      "  login: string;",
      "  /** @format uri */",
      '  "avatar-url"?: string | null;',
      "  manager?: SimpleUser;",
      "}",
      "export type Shape = Circle | Square;",
      "export interface Circle {\n  r?: number;\n}",
      "export interface Labels {\n  [key: string]: string;\n}",
      "export interface Square {\n  side?: number;\n  [key: string]: unknown;\n}",
    ].join("\n"),
  );
  // Each name is declared once, however often it is reached.
  assert.equal(types.typeOf({ $ref: "#/components/schemas/Circle" }), "Circle");
  assert.equal(types.declarations(), "");
});

Deno.test("ApiSchemaTypes.toJsonSchema() translates OpenAPI 3.0 keywords for the validator", () => {
  const types = new ApiSchemaTypes(DOCUMENT);
  const schema = types.toJsonSchema({
    type: "object",
    properties: {
      user: { $ref: "#/components/schemas/simple-user" },
      shape: { $ref: "#/components/schemas/Shape" },
      note: { type: "string", nullable: true, "x-internal": true, example: "hi" },
    },
  }, "createThing");
  assert.deepEqual(schema.properties, {
    user: { $ref: "#/$defs/simple-user" },
    shape: { $ref: "#/$defs/Shape" },
    note: { type: ["string", "null"] },
  });
  const defs = schema.$defs as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(defs).sort(), ["Circle", "Shape", "Square", "simple-user"]);
  assert.deepEqual(defs.Circle?.properties, { r: { type: "number", exclusiveMinimum: 0 } });
  assert.deepEqual(defs.Shape, { anyOf: [{ $ref: "#/$defs/Circle" }, { $ref: "#/$defs/Square" }] });
  assert.ok(types.notes.oneOfWithoutDiscriminator.has("createThing"));
});

Deno.test("ApiSchemaTypes types a dangling $ref as unknown and notes it", () => {
  const types = new ApiSchemaTypes(DOCUMENT);
  assert.equal(types.typeOf({ $ref: "#/components/schemas/Missing" }), "unknown");
  assert.ok(types.notes.danglingRefs.has("#/components/schemas/Missing"));
});
