import assert from "node:assert/strict";
import { buildCatalogue, type McpToolListing } from "./build_catalogue.ts";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});

const TOOLS: McpToolListing[] = [
  {
    name: "get-sum",
    title: "Get Sum Tool",
    description: "Returns the sum of two numbers",
    inputSchema: obj({
      a: { type: "number", description: "First number\nmore" },
      b: { type: "number" },
    }, [
      "a",
      "b",
    ]),
    annotations: { readOnlyHint: true },
  },
  { name: "get-tiny-image", title: "Tiny image", inputSchema: obj({}) },
  {
    name: "weather",
    inputSchema: obj({ city: { type: "string" } }),
    outputSchema: obj({ temperature: { type: "number" } }, ["temperature"]),
  },
];

Deno.test("`buildCatalogue()` describes each tool with its types, params and annotations", () => {
  const catalogue = buildCatalogue("everything", { tools: TOOLS });
  const [sum, image, weather] = catalogue.tools;
  assert.deepStrictEqual(sum, {
    originalName: "get-sum",
    description: "Returns the sum of two numbers",
    inputType: "GetSumInput",
    inputOptional: false,
    outputType: "any",
    params: [
      { name: "a", description: "First number", required: true },
      { name: "b", description: "", required: true },
    ],
    inputSchema: TOOLS[0]!.inputSchema,
    annotations: { readOnlyHint: true },
  });
  assert.equal(image?.inputType, null);
  assert.equal(image?.inputOptional, true);
  assert.equal(image?.description, "Tiny image");
  assert.equal(weather?.inputType, "WeatherInput");
  assert.equal(weather?.inputOptional, true);
  assert.equal(weather?.outputType, "WeatherOutput");
  assert.deepStrictEqual(weather?.outputSchema, TOOLS[2]!.outputSchema);
  assert.match(catalogue.declarations, /export interface GetSumInput \{/);
  assert.ok(
    catalogue.declarations.includes("export interface WeatherOutput {\n  temperature: number;\n}"),
  );
  assert.deepStrictEqual(catalogue.warnings, []);
});

Deno.test("`buildCatalogue()` gives colliding tools distinct type names and warns, whatever the order", () => {
  const tools: McpToolListing[] = ["fancy_name", "fancy-name", "delete"].map((name) => ({
    name,
    inputSchema: obj({ x: { type: "string" } }),
  }));
  const one = buildCatalogue("fixture", { tools });
  const two = buildCatalogue("fixture", { tools: [...tools].reverse() });
  assert.deepStrictEqual(one, two);
  assert.deepStrictEqual(one.tools.map((t) => [t.originalName, t.inputType]), [
    ["delete", "DeleteInput"],
    ["fancy-name", "FancyNameInput"],
    ["fancy_name", "FancyName2Input"],
  ]);
  assert.deepStrictEqual(one.warnings, [
    'fixture tool "fancy-name" and "fancy_name" both become "fancy_name": "fancy-name" is "fancy_name_2" (or use ["fancy-name"])',
  ]);
});

Deno.test("`buildCatalogue()` names each tool's $defs after it and warns of a $ref it cannot follow", () => {
  const node = {
    type: "object",
    properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } },
  };
  const catalogue = buildCatalogue("ns", {
    tools: [
      {
        name: "tree",
        inputSchema: { ...obj({ root: { $ref: "#/$defs/node" } }), $defs: { node } },
      },
      {
        name: "forest",
        inputSchema: { ...obj({ root: { $ref: "#/$defs/node" } }), $defs: { node } },
      },
      { name: "broken", inputSchema: obj({ a: { $ref: "#/$defs/Missing" } }) },
    ],
    prompts: [],
  });
  assert.match(
    catalogue.declarations,
    /export interface TreeInput \{\n {2}root\?: TreeInputNode;\n\}/,
  );
  assert.match(
    catalogue.declarations,
    /export interface TreeInputNode \{\n {2}children\?: TreeInputNode\[\];\n\}/,
  );
  assert.match(catalogue.declarations, /export interface ForestInputNode \{/);
  assert.match(catalogue.declarations, /export interface BrokenInput \{\n {2}a\?: unknown;\n\}/);
  assert.equal(catalogue.tools.find((t) => t.originalName === "broken")?.inputType, "BrokenInput");
  assert.deepStrictEqual(catalogue.warnings, [
    'The input type of tool "ns.broken" is loosened: "$ref": "#/$defs/Missing" cannot be followed (typed unknown)',
  ]);
  assert.deepStrictEqual(catalogue.prompts, []);
});
