import assert from "node:assert/strict";
import { namespacedUri, splitNamespacedUri } from "./mcp_resources.ts";

Deno.test("an upstream URI round-trips through its namespaced form, whatever its scheme", () => {
  for (const uri of ["demo://resource/static/1", "file:///tmp/a b.txt", "https://x.y/z?q=1"]) {
    const namespaced = namespacedUri("every thing", uri);
    assert.match(namespaced, /^gateway:\/\/ns\/every%20thing\//);
    assert.deepEqual(splitNamespacedUri(namespaced), { namespace: "every thing", uri });
  }
  assert.equal(splitNamespacedUri("gateway://types/math"), null);
  assert.equal(splitNamespacedUri("gateway://ns/"), null);
});
