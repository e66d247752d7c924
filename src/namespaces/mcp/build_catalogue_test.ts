import assert from "node:assert/strict";
import { buildCatalogue, type McpToolListing } from "./build_catalogue.ts";
import type { RenderedSchema } from "../kind_support/schema_to_typescript.ts";

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

Deno.test("`buildCatalogue()` describes each tool with its types, params and annotations", async () => {
  const catalogue = await buildCatalogue("everything", { tools: TOOLS });
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

Deno.test("`buildCatalogue()` gives colliding tools distinct type names and warns, whatever the order", async () => {
  const tools: McpToolListing[] = ["fancy_name", "fancy-name", "delete"].map((name) => ({
    name,
    inputSchema: obj({ x: { type: "string" } }),
  }));
  const one = await buildCatalogue("fixture", { tools });
  const two = await buildCatalogue("fixture", { tools: [...tools].reverse() });
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

Deno.test("`buildCatalogue()` falls back to an open object type and warns when a schema cannot be rendered", async () => {
  const catalogue = await buildCatalogue("ns", {
    tools: [{ name: "broken", inputSchema: obj({ a: { $ref: "#/$defs/Missing" } }) }],
  });
  assert.equal(catalogue.tools[0]?.inputType, "{ [key: string]: unknown }");
  assert.equal(catalogue.warnings.length, 1);
  assert.match(catalogue.warnings[0] ?? "", /^Cannot render the input type of tool "ns.broken": /);
});

Deno.test("`buildCatalogue()` reuses rendered schemas from the cache", async () => {
  const cache = new Map<string, RenderedSchema>();
  await buildCatalogue("ns", { tools: TOOLS, cache });
  assert.equal(cache.size, 3);
  for (const [key, value] of cache) cache.set(key, { ...value, declarations: "// cached" });
  const again = await buildCatalogue("ns", { tools: TOOLS, cache, prompts: [] });
  assert.equal(again.declarations, "// cached\n\n// cached\n\n// cached");
  assert.deepStrictEqual(again.prompts, []);
});
