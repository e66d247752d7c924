/**
 * How the CLI shows results: a run's stdout and result, and errors as one line
 * `error[Kind]: message` on stderr. The one error printer.
 * @module
 */

import type { RunDocument, RunningDocument } from "../protocol/run_document.ts";
import type { CliOutput } from "./cli_context.ts";

/** Exit code for a finished run: 0 ok, 124 timeout, 1 any other failure. */
export function runExitCode(document: RunDocument): number {
  if (document.ok) return 0;
  return document.error?.kind === "Timeout" ? 124 : 1;
}

/** Whether an RPC answer is a yielded, still-running run. */
export function isRunning(value: unknown): value is RunningDocument {
  return typeof value === "object" && value !== null &&
    (value as { status?: unknown }).status === "running";
}

/** Formats a result value for a terminal: strings as they are, the rest as JSON. */
export function formatResult(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** Prints a run: stdout (unless already streamed), the result, stderr, then the error line. */
export function printRun(
  document: RunDocument,
  output: CliOutput,
  options: { streamed: boolean },
): void {
  if (!options.streamed && document.stdout !== "") {
    output.out(document.stdout.endsWith("\n") ? document.stdout : `${document.stdout}\n`);
  }
  if (document.result !== undefined) output.out(`${formatResult(document.result)}\n`);
  if (!options.streamed && document.stderr !== "") {
    output.err(document.stderr.endsWith("\n") ? document.stderr : `${document.stderr}\n`);
  }
  for (const warning of document.warnings) output.err(`warning: ${warning}\n`);
  for (const attachment of document.attachments) {
    output.err(
      `attachment: ${attachment.type}${
        "mimeType" in attachment ? ` ${attachment.mimeType}` : ""
      }\n`,
    );
  }
  if (document.history === "failed") {
    output.err("warning: this run could not be saved to history\n");
  }
  if (document.error) {
    const { error } = document;
    const position = error.line !== undefined
      ? `line ${error.line}${error.column !== undefined ? `:${error.column}` : ""}`
      : "";
    // A message that names its position already (a type check's) is not told it twice.
    const where = position !== "" && !error.message.includes(position) ? ` (${position})` : "";
    output.err(`error[${error.kind}]: ${error.message}${where}\n`);
    for (const d of error.diagnostics?.slice(1) ?? []) {
      output.err(`  line ${d.line}:${d.column}: ${d.message}\n`);
    }
  }
}

/** Prints an error that is not a run failure (connection, usage, gateway error). */
export function printError(output: CliOutput, kind: string, message: string): void {
  output.err(`error[${kind}]: ${message}\n`);
}
