/**
 * `gateway history`: recent runs; `show ID` one run in full; `rerun ID` runs its source again;
 * `save ID NAME` promotes a run that worked to a named script.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { intFlag, parseCommandArgs } from "./command_args.ts";
import { submitRun } from "./submit_run.ts";
import { UsageError } from "./usage_error.ts";
import { FAILURE_KINDS, isFailureKind } from "../protocol/run_document.ts";
import { nearestNames } from "../protocol/names.ts";
import { countOf } from "../protocol/count_of.ts";

/** Most runs one filtered listing answers (the dashboard's page limit). */
const MAX_SEARCH_LIMIT = 200;

/** Usage text of `gateway history`. */
export const HISTORY_USAGE =
  `Usage: gateway history [--limit N] [--failed] [--kind KIND] [--text WORDS] [--json]
       gateway history show ID [--json]
       gateway history rerun ID [--json]
       gateway history save ID NAME

Every run is recorded (source, output, tool calls). IDs may be abbreviated to 6+ characters.
  --failed        only runs that failed
  --kind KIND     only runs that failed with this kind (PolicyDenied, Timeout, ...)
  --text WORDS    only runs whose id, source, script name or client holds WORDS
  --limit N       at most N runs, newest first (default 20)`;

interface StoredRun {
  runId: string;
  startedAt: number;
  durationMs: number;
  source: string;
  args: string[];
  status: string;
  errorKind: string | null;
  errorMessage: string | null;
  stdout: string;
  stderr: string;
  result: string | null;
  cwd: string;
  client: string;
  name: string | null;
  toolCalls: Array<
    {
      namespace: string;
      tool: string;
      /** The path a script types for the tool, when the server still serves it. */
      typedName?: string;
      durationMs: number;
      ok: boolean;
      errorKind: string | null;
      result?: string;
    }
  >;
}

/** Runs `gateway history`. */
export async function historyCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { booleans: ["json", "failed"], strings: ["limit", "kind", "text"] },
    HISTORY_USAGE,
  );
  const [verb, id, name] = parsed.positionals;
  const out = context.output.out;
  if (verb === undefined) {
    const limit = intFlag(parsed.flags.limit, "limit", HISTORY_USAGE) ?? 20;
    const kind = parsed.flags.kind === undefined ? undefined : String(parsed.flags.kind);
    const text = parsed.flags.text === undefined ? undefined : String(parsed.flags.text);
    if (kind !== undefined && !isFailureKind(kind)) {
      const near = nearestNames(kind, FAILURE_KINDS, { limit: 1 });
      throw new UsageError(
        `--kind takes a failure kind, not "${kind}"${
          near[0] ? `: did you mean "${near[0]}"?` : ""
        } (the kinds: ${FAILURE_KINDS.join(", ")})`,
        HISTORY_USAGE,
      );
    }
    const filtered = kind !== undefined || text !== undefined;
    if (filtered && limit > MAX_SEARCH_LIMIT) {
      throw new UsageError(
        `--limit with --kind or --text is at most ${MAX_SEARCH_LIMIT}, not ${limit}`,
        HISTORY_USAGE,
      );
    }
    return await context.withClient(async ({ client }) => {
      // The filters are the dashboard's (`history.search`); without them the plain list.
      const answer = await client.request<
        {
          runs: Array<
            {
              runId: string;
              startedAt: number;
              durationMs: number;
              status: string;
              errorKind: string | null;
              toolCalls: number;
              preview: string;
              name: string | null;
            }
          >;
          total?: number;
        }
      >(
        filtered ? "history.search" : "history.list",
        filtered
          ? {
            limit,
            ...(parsed.flags.failed || kind !== undefined ? { status: "failed" } : {}),
            ...(kind !== undefined ? { kind } : {}),
            ...(text !== undefined ? { text } : {}),
          }
          : { limit, ...(parsed.flags.failed ? { failed: true } : {}) },
      );
      if (parsed.flags.json) {
        out(`${JSON.stringify(answer, null, 2)}\n`);
        return 0;
      }
      for (const run of answer.runs) {
        const when = new Date(run.startedAt).toISOString().replace("T", " ").slice(0, 19);
        const status = run.status === "ok" ? "ok" : `failed ${run.errorKind ?? ""}`;
        out(
          `${run.runId}  ${when}  ${String(run.durationMs).padStart(6)} ms  ${status.padEnd(24)} ${
            run.name ?? run.preview
          }\n`,
        );
      }
      if (answer.runs.length === 0) out(filtered ? "no runs match\n" : "no runs recorded yet\n");
      const more = (answer.total ?? 0) - answer.runs.length;
      if (more > 0) {
        context.output.err(`${countOf(more, "more run")} match: raise --limit to see them\n`);
      }
      return 0;
    });
  }
  if (!id) throw new UsageError(`history ${verb} needs a run ID`, HISTORY_USAGE);
  if (verb !== "show" && verb !== "rerun" && verb !== "save") {
    throw new UsageError(`Unknown history command "${verb}"`, HISTORY_USAGE);
  }
  const run = await context.withClient(({ client }) =>
    client.request<StoredRun>("history.get", { id })
  );
  if (verb === "show") {
    if (parsed.flags.json) {
      out(`${JSON.stringify(run, null, 2)}\n`);
      return 0;
    }
    out(
      `run ${run.runId}${run.name ? ` (script ${run.name})` : ""}: ${run.status}${
        run.errorKind ? ` ${run.errorKind}: ${run.errorMessage}` : ""
      }\n`,
    );
    out(
      `started ${
        new Date(run.startedAt).toISOString()
      }, ${run.durationMs} ms, client ${run.client}, cwd ${run.cwd}\n`,
    );
    out(`--- source\n${run.source}\n`);
    if (run.args.length) out(`--- args\n${run.args.join(" ")}\n`);
    if (run.toolCalls.length) {
      out(`--- tool calls (${run.toolCalls.length})\n`);
      for (const c of run.toolCalls) {
        out(
          `${callName(c)} ${c.durationMs} ms ${c.ok ? "ok" : c.errorKind}${
            c.result === undefined ? "" : ` → ${shortResult(c.result)}`
          }\n`,
        );
      }
    }
    if (run.stdout) out(`--- stdout\n${run.stdout}${run.stdout.endsWith("\n") ? "" : "\n"}`);
    if (run.stderr) out(`--- stderr\n${run.stderr}${run.stderr.endsWith("\n") ? "" : "\n"}`);
    if (run.result !== null) out(`--- result\n${run.result}\n`);
    return 0;
  }
  if (verb === "rerun") {
    return await submitRun(context, "exec", { source: run.source }, {
      json: parsed.flags.json === true,
      check: undefined,
      timeoutMs: undefined,
      yieldAfterMs: undefined,
      permissions: undefined,
      args: run.args,
      stdin: "",
    });
  }
  if (!name) throw new UsageError("history save needs a NAME for the script", HISTORY_USAGE);
  const saved = await context.withClient(({ client }) =>
    client.request<{ file: string }>("history.save", { id: run.runId, name })
  );
  out(`saved run ${run.runId} as ${saved.file}: gateway run ${name}\n`);
  return 0;
}

/** Most characters of a call's result `history show` prints on the call's line. */
const SHORT_RESULT_CHARS = 200;

/** A call's stored result on one line, cut to {@linkcode SHORT_RESULT_CHARS} (`--json` has it whole). */
function shortResult(text: string): string {
  const line = text.replace(/\s*\n\s*/g, " ");
  return line.length > SHORT_RESULT_CHARS ? `${line.slice(0, SHORT_RESULT_CHARS - 1)}…` : line;
}

/**
 * A tool call as the script typed it (`everything.get_sum`), with the upstream's tool name
 * after it where that differs (`(upstream get-sum)`).
 */
function callName(call: { namespace: string; tool: string; typedName?: string }): string {
  if (call.typedName === undefined) return `${call.namespace}.${call.tool}`;
  const typedTool = call.typedName.slice(call.typedName.indexOf(".") + 1);
  return typedTool === call.tool ? call.typedName : `${call.typedName} (upstream ${call.tool})`;
}
