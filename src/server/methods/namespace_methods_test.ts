import assert from "node:assert/strict";
import { syntheticSnapshot } from "../../discovery/synthetic_snapshot.ts";
import { RpcError } from "../../protocol/json_rpc.ts";
import type { CatalogueSnapshot } from "../../protocol/catalogue.ts";
import { typesText } from "./namespace_methods.ts";

/** A catalogue whose snapshot the test replaces, as a catalogue change does. */
function catalogueOf(first: CatalogueSnapshot) {
  let snapshot = first;
  return {
    snapshot: () => snapshot,
    change(next: CatalogueSnapshot) {
      snapshot = next;
    },
  };
}

Deno.test("typesText() renders a selection once per snapshot and again after a change", () => {
  const catalogue = catalogueOf(syntheticSnapshot({ namespaces: 2, toolsPerNamespace: 2 }));
  const kv = typesText(catalogue, ["kv"]);
  assert.match(kv, /namespace kv \{/);
  assert.doesNotMatch(kv, /namespace github \{/);
  // Asked again for the same snapshot, the text rendered before (a snapshot never changes in
  // place; altering this one shows the text is not rendered again).
  const first = catalogue.snapshot();
  const shown = first.namespaces;
  first.namespaces = [];
  assert.equal(typesText(catalogue, ["kv"]), kv);
  first.namespaces = shown;
  const all = typesText(catalogue);
  assert.match(all, /namespace github \{/);
  assert.notEqual(all, kv);
  // A catalogue change is a new snapshot: rendered from it, not served from before.
  catalogue.change(syntheticSnapshot({ namespaces: 2, toolsPerNamespace: 3 }));
  const changed = typesText(catalogue, ["kv"]);
  assert.notEqual(changed, kv);
  assert.match(changed, /namespace kv \{/);
});

Deno.test("typesText() refuses an unknown name as invalid params, naming it", () => {
  const catalogue = catalogueOf(syntheticSnapshot({ namespaces: 2, toolsPerNamespace: 1 }));
  assert.throws(
    () => typesText(catalogue, ["nope"]),
    (error: unknown) => error instanceof RpcError && /nope/.test(error.message),
  );
});
