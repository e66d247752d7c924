import assert from "node:assert/strict";
import {
  type CatalogueNamespace,
  describeStatus,
  exposedTools,
  lookupToolIdentifier,
} from "./catalogue.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";

const tool = (originalName: string) => toolDescriptor(originalName);

const ns: CatalogueNamespace = {
  name: "my-kv",
  identifier: "my_kv",
  kind: "local",
  status: { state: "ready" },
  catalogue: {
    tools: [tool("set"), tool("get-item"), tool("toString"), tool("refused")],
    declarations: "",
    warnings: [],
  },
  toolIdentifiers: { "get-item": "get_item", set: "set", toString: "toString_" },
};

Deno.test("`describeStatus()` is the one wording of a namespace status", () => {
  assert.equal(describeStatus({ state: "ready" }), "ready");
  assert.equal(describeStatus({ state: "starting" }), "starting");
  assert.equal(describeStatus({ state: "disabled" }), "disabled");
  assert.equal(
    describeStatus({ state: "failed", reason: "exited with code 1" }),
    "failed: exited with code 1",
  );
});

Deno.test("`lookupToolIdentifier()` reads own entries only, so object built-ins never match", () => {
  assert.equal(lookupToolIdentifier(ns, "get-item"), "get_item");
  assert.equal(lookupToolIdentifier(ns, "toString"), "toString_");
  assert.equal(lookupToolIdentifier(ns, "refused"), undefined);
  assert.equal(lookupToolIdentifier({ toolIdentifiers: {} }, "toString"), undefined);
  assert.equal(lookupToolIdentifier({ toolIdentifiers: {} }, "constructor"), undefined);
});

Deno.test("`exposedTools()` lists tools with an identifier, sorted by original name", () => {
  assert.deepEqual(
    exposedTools(ns).map((entry) => [entry.tool.originalName, entry.identifier]),
    [["get-item", "get_item"], ["set", "set"], ["toString", "toString_"]],
  );
});
