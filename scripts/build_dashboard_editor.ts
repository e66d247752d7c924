/**
 * Bundles the dashboard's editor (CodeMirror 6 from the pinned npm packages) into
 * `src/server/ui/static/editor.js`, which the gateway serves at `/ui/editor.js`: the machine
 * may be offline and the page never loads from a CDN. Run after changing `editor_entry.js` or
 * the CodeMirror versions: `deno run -A scripts/build_dashboard_editor.ts`.
 * @module
 */

const root = new URL("../", import.meta.url);
const entry = new URL("src/server/ui/editor_entry.js", root).pathname;
const output = new URL("src/server/ui/static/editor.js", root).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: ["bundle", "--quiet", "--minify", "--platform", "browser", "-o", output, entry],
  cwd: root.pathname,
});
const { code } = await child.spawn().status;
if (code !== 0) {
  console.error(`deno bundle failed (exit ${code})`);
  Deno.exit(code);
}
console.log(`wrote ${output} (${(await Deno.stat(output)).size} bytes)`);
