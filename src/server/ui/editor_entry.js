// The dashboard's script editor: CodeMirror 6 with TypeScript highlighting, completions and
// lint diagnostics fed by the page. Bundled into static/editor.js by
// `deno run -A src/server/ui/build_editor_bundle.ts`; the page loads it from the gateway, never a CDN.
import { basicSetup, EditorView } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { linter, lintGutter } from "@codemirror/lint";
import { autocompletion } from "@codemirror/autocomplete";
import { keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";

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
