/**
 * Bundles the dashboard's editor (CodeMirror 6 from the pinned npm packages) into
 * `src/server/ui/static/editor.js`, which the gateway serves at `/ui/editor.js`: the machine
 * may be offline and the page never loads from a CDN. Run after changing `editor_entry.js` or
 * the CodeMirror versions: `deno run -A src/server/ui/build_editor_bundle.ts`.
 * @module
 */

const ROOT = new URL("../../../", import.meta.url).pathname;
const ENTRY = new URL("./editor_entry.js", import.meta.url).pathname;
/** Where the committed bundle lives. */
export const EDITOR_BUNDLE: string = new URL("./static/editor.js", import.meta.url).pathname;

/** Writes the bundle to `output`; throws with deno's stderr when bundling fails. */
export async function bundleEditor(output: string): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--minify", "--platform", "browser", "-o", output, ENTRY],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `deno bundle of ${ENTRY} failed (exit ${code}): ${new TextDecoder().decode(stderr)}`,
    );
  }
}

if (import.meta.main) {
  await bundleEditor(EDITOR_BUNDLE);
  console.log(`wrote ${EDITOR_BUNDLE} (${(await Deno.stat(EDITOR_BUNDLE)).size} bytes)`);
}
