/**
 * A run that worked, saved as a named script (`gateway history save ID NAME`, the dashboard's
 * "save"): one place writes it, so both save the same file. A snippet's last expression is its
 * run's result, but a named script's output is its stdout; so the saved script prints that
 * expression as `gateway exec` printed the result, and `gateway run NAME` shows what the run
 * showed.
 * @module
 */

import { join } from "node:path";
import { installationDir, type ResolvedRoot } from "../config/gateway_paths.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { stripMarkdownFence } from "../exec/markdown_fence.ts";
import { prepareScript } from "../exec/script_transform.ts";

/** What a script name may be: letters, digits, `_` and `-`, with `/` for folders. */
const SCRIPT_NAME = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** The function a saved script hands its last expression to. */
const PRINTER = "printRunResult";

/** The printer's declaration, appended to a saved script that prints a result. */
const PRINTER_DECLARATION = `
/** Prints the run's result (its last expression) as \`gateway exec\` does. */
function ${PRINTER}(value: unknown): void {
  if (value !== undefined) {
    console.log(typeof value === "string" ? value : JSON.stringify(value, null, 2));
  }
}
`;

/** The run a save reads: its id, outcome, source, and the named script it ran, if one. */
export interface SavableRun {
  runId: string;
  status: string;
  errorKind: string | null;
  source: string;
  /** Set for a run of a named script, whose last expression was never its result. */
  name?: string | null;
}

/** A save the caller got wrong (a failed run, a bad name, a taken name): a usage error. */
function refused(message: string): RpcError {
  return new RpcError(RpcCode.InvalidParams, message, { kind: "Usage" });
}

/**
 * The text of the script a run is saved as: a header naming the run and how to run it, the
 * run's source (Markdown fences dropped), and, when it was a snippet whose last top-level
 * statement is an expression, that expression printed as the run's result was.
 */
export async function savedScriptText(run: SavableRun, name: string): Promise<string> {
  const header = `/**\n * Saved from run ${run.runId}.\n * @example gateway run ${name}\n */\n`;
  const source = stripMarkdownFence(run.source).source.replace(/\s+$/, "");
  // A named script's run printed only its stdout: saved as it was, it prints the same.
  if (run.name) return `${header}${source}\n`;
  const prepared = await prepareScript(source, { inline: true });
  if (prepared.kind !== "Prepared" || !prepared.lastExpression) return `${header}${source}\n`;
  // The capture inserted text before and after the expression: those are its bounds.
  const [before, after] = prepared.insertions;
  if (before === undefined || after === undefined) return `${header}${source}\n`;
  const body = `${source.slice(0, before.offset)}${PRINTER}(${
    source.slice(before.offset, after.offset)
  })${source.slice(after.offset)}`;
  return `${header}${body}\n${PRINTER_DECLARATION}`;
}

/**
 * Saves `run` as `ROOT/scripts/NAME.ts` and answers the file. Refused (a usage error naming
 * the fix) for a run that failed, a bad name, a name taken, or a root that is the gateway's own
 * installation, which is never written to.
 */
export async function saveRunAsScript(
  options: { root: ResolvedRoot; run: SavableRun; name: string },
): Promise<string> {
  const { root, run, name } = options;
  if (run.status !== "ok") {
    throw refused(
      `Run ${run.runId} failed (${run.errorKind}): only a run that worked can be saved`,
    );
  }
  if (!SCRIPT_NAME.test(name)) {
    throw refused(
      `Invalid script name "${name}": use letters, digits, _ and - (and / for folders)`,
    );
  }
  if (root.source === "bundled" || root.dir === installationDir()) {
    throw refused(
      `The root here is the gateway's installation (${root.dir}), not yours: run gateway init here (or pass --root DIR), then save the run into that root's scripts/`,
    );
  }
  const file = join(root.dir, "scripts", `${name}.ts`);
  const text = await savedScriptText(run, name);
  await Deno.mkdir(join(file, ".."), { recursive: true });
  try {
    await Deno.writeTextFile(file, text, { createNew: true });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw refused(`Script "${file}" exists already: pick another NAME`);
    }
    throw error;
  }
  return file;
}
