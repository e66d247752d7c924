import assert from "node:assert/strict";
import { bundleEditor, EDITOR_BUNDLE } from "./build_editor_bundle.ts";

Deno.test("the committed editor bundle is what editor_entry.js and the pinned CodeMirror build", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleEditor(`${dir}/editor.js`);
    const fresh = await Deno.readTextFile(`${dir}/editor.js`);
    const committed = await Deno.readTextFile(EDITOR_BUNDLE);
    assert.ok(
      fresh === committed,
      "src/server/ui/static/editor.js is stale: run deno run -A src/server/ui/build_editor_bundle.ts",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
