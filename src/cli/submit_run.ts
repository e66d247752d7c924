/**
 * Sends a run (`exec` or `run`) to the server and shows it: streams output on a TTY, prints
 * the document with `--json`, follows a yielded run only when asked, and maps the outcome to
 * the exit code.
 * @module
 */

import type { PermissionSet } from "../config/gateway_config.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import { RpcError } from "../protocol/json_rpc.ts";
import type { CliContext } from "./cli_context.ts";
import { isRunning, printError, printRun, runExitCode } from "./print.ts";
import { printApprovalNotices } from "./approval_notice.ts";
import { printWaitNotices, showsWaits } from "./wait_notice.ts";

/** Flags `exec` and `run` share, already parsed. */
export interface RunFlags {
  json: boolean;
  check: boolean | undefined;
  timeoutMs: number | undefined;
  yieldAfterMs: number | undefined;
  permissions: PermissionSet | undefined;
  args: string[];
  stdin: string;
}

/** Reads all of stdin when it is piped; "" on a TTY. */
export async function readPipedStdin(): Promise<string> {
  if (Deno.stdin.isTerminal()) return "";
  return await new Response(Deno.stdin.readable).text();
}

/** Submits `method` (`exec` or `run`) and prints the outcome; returns the exit code. */
export async function submitRun(
  context: CliContext,
  method: "exec" | "run",
  params: Record<string, unknown>,
  flags: RunFlags,
): Promise<number> {
  const streaming = context.output.isTty && !flags.json;
  return await context.withClient(async ({ client }) => {
    let streamed = false;
    printApprovalNotices(client, context);
    const waits = showsWaits(context.output);
    const stopWaits = waits ? printWaitNotices(client, context.output) : () => {};
    if (streaming) {
      client.onNotification((n) => {
        if (n.method !== "run.output") return;
        const p = n.params as { stream: string; text: string };
        streamed = true;
        if (p.stream === "stdout") context.output.out(p.text);
        else context.output.err(p.text);
      });
    }
    let answer: unknown;
    try {
      answer = await client.request(method, {
        ...params,
        args: flags.args,
        stdin: flags.stdin,
        cwd: context.cwd,
        client: "cli",
        ...(flags.check !== undefined ? { check: flags.check } : {}),
        ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
        ...(flags.yieldAfterMs !== undefined ? { yieldAfterMs: flags.yieldAfterMs } : {}),
        ...(flags.permissions ? { permissions: flags.permissions } : {}),
        ...(streaming ? { stream: true } : {}),
        ...(waits ? { progress: true } : {}),
      }).finally(stopWaits);
    } catch (error) {
      if (error instanceof RpcError) {
        printError(context.output, String(error.data?.kind ?? "Usage"), error.message);
        return 2;
      }
      throw error;
    }
    if (isRunning(answer)) {
      if (flags.json) context.output.out(`${JSON.stringify(answer, null, 2)}\n`);
      else {
        if (!streamed && answer.stdout) context.output.out(answer.stdout);
        // The id on stdout, so `id=$(gateway exec --yield …)` works; the hint on stderr.
        context.output.out(`${answer.runId}\n`);
        context.output.err(`run ${answer.runId} is still running: gateway wait ${answer.runId}\n`);
      }
      return 0;
    }
    const document = answer as RunDocument;
    if (flags.json) context.output.out(`${JSON.stringify(document, null, 2)}\n`);
    else {printRun(document, context.output, {
        streamed: streamed && document.stdoutTruncated === false,
      });}
    return runExitCode(document);
  });
}
