// The dashboard's script editor: CodeMirror 6 with TypeScript highlighting, completions and
// lint diagnostics fed by the page. Bundled into static/editor.js by
// `deno task bundle`; the page loads it from the gateway, never a CDN. CodeMirror is needed only
// to build that bundle, so it stays out of the product's import map and lock (test/deno.lock
// pins it).
// deno-lint-ignore-file no-import-prefix
import { basicSetup, EditorView } from "npm:codemirror@6.0.2";
import { javascript } from "npm:@codemirror/lang-javascript@6.2.5";
import { linter, lintGutter } from "npm:@codemirror/lint@6.9.8";
import { autocompletion } from "npm:@codemirror/autocomplete@6.20.4";
import { keymap } from "npm:@codemirror/view@6.43.15";
import { EditorState, Prec } from "npm:@codemirror/state@6.7.6";

/**
 * Creates an editor in `parent`. `options.complete(context)` answers completion results,
 * `options.diagnose(text)` resolves to [{line, column, message}] (1-based), `options.run()` is
 * bound to Ctrl/Cmd-Enter.
 */
export function createEditor(parent, options) {
  const lint = linter(async (view) => {
    const text = view.state.doc.toString();
    const found = await options.diagnose(text);
    return found.map((d) => {
      const line = view.state.doc.line(Math.min(Math.max(d.line, 1), view.state.doc.lines));
      const from = Math.min(line.from + Math.max(d.column - 1, 0), line.to);
      return {
        from,
        to: Math.max(from + 1, Math.min(line.to, from + 1)),
        severity: "error",
        message: d.message,
      };
    });
  }, { delay: 400 });
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc ?? "",
      extensions: [
        basicSetup,
        javascript({ typescript: true }),
        autocompletion({ override: [options.complete] }),
        lint,
        lintGutter(),
        // Wrapped lines: the scroller never scrolls sideways (a region keyboards cannot reach).
        EditorView.lineWrapping,
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (options.run(), true) }])),
        EditorView.contentAttributes.of({ "aria-label": "Script source" }),
      ],
    }),
  });
  return {
    view,
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
  };
}
