/**
 * The fast path of `gateway exec CODE` with a server already running: the command an agent pays
 * for from its shell on every run. It loads only Deno APIs, the client and the printer — no
 * `node:` module, no zod, no command table — reads `server.json`, checks the server's socket is
 * this user's, sends one `exec` as `POST /rpc` on it and prints the run as `gateway exec` does.
 * Anything it does not handle (a `.ts` file, `-`, `--timeout` and the other flags, a terminal
 * on stdout, no server listening on the socket) returns null before anything is sent, and the
 * full CLI runs.
 * @module
 */

import { UnreachableError } from "../client/gateway_http_client.ts";
import { fastConnection } from "./fast_connection.ts";
import { RpcError } from "../protocol/json_rpc.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import type { CliOutput } from "./cli_context.ts";
import { printApprovalNotices } from "./approval_notice.ts";
import { printWaitNotices, showsWaits } from "./wait_notice.ts";
import { printError, printRun, runExitCode } from "./print.ts";
import { messageOf } from "../protocol/message_of.ts";

/** What `gateway exec` reads of its invocation. */
export interface FastExecInput {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  cwd: string;
  output: CliOutput;
  /** Reads piped stdin to its end ("" on a terminal), as the full path does. */
  readStdin: () => Promise<string>;
}

interface SimpleExec {
  rootFlag: string | null;
  source: string;
  json: boolean;
  check: boolean | undefined;
  noStdin: boolean;
  args: string[];
}

/** Parses the one shape the fast path serves; null for anything else (the full CLI decides). */
export function parseSimpleExec(argv: readonly string[]): SimpleExec | null {
  let rootFlag: string | null = null;
  let command: string | undefined;
  const sources: string[] = [];
  const flags = new Set<string>();
  let args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--root") {
      const value = argv[++i];
      if (value === undefined) return null;
      rootFlag = value;
    } else if (arg.startsWith("--root=")) rootFlag = arg.slice("--root=".length);
    else if (arg === "--no-autostart") continue; // a live server is required here anyway
    else if (command === undefined) {
      if (arg !== "exec") return null;
      command = arg;
    } else if (arg === "--") {
      args = argv.slice(i + 1);
      break;
    } else if (arg.startsWith("-")) {
      if (!["--json", "--no-check", "--check", "--no-stdin"].includes(arg)) return null;
      flags.add(arg);
    } else sources.push(arg);
  }
  const source = sources[0];
  if (command === undefined || sources.length !== 1 || source === undefined) return null;
  if (/\.(ts|js|mts)$/.test(source)) return null; // a file: the full path reads it
  return {
    rootFlag,
    source,
    json: flags.has("--json"),
    check: flags.has("--no-check") ? false : flags.has("--check") ? true : undefined,
    noStdin: flags.has("--no-stdin"),
    args,
  };
}

/**
 * Runs a simple `gateway exec` against a running server and returns its exit code, or null
 * when the full CLI must handle the invocation (nothing has been sent or printed then).
 */
export async function fastExec(input: FastExecInput): Promise<number | null> {
  const { output } = input;
  if (output.isTty) return null; // streaming and progress lines: the full path
  const simple = parseSimpleExec(input.argv);
  if (simple === null) return null;
  const connection = fastConnection({ rootFlag: simple.rootFlag, env: input.env, cwd: input.cwd });
  if (connection === null) return null;
  const { client, root } = connection;
  try {
    printApprovalNotices(client, { root, output });
    const waits = showsWaits(output);
    const stopWaits = waits ? printWaitNotices(client, output) : () => {};
    let answer: unknown;
    try {
      // Piped stdin is read once the server has taken the connection, so the full path still
      // gets it when no server answers.
      answer = await client.request("exec", async () => ({
        source: simple.source,
        args: simple.args,
        stdin: simple.noStdin ? "" : await input.readStdin(),
        cwd: input.cwd,
        client: "cli",
        ...(simple.check !== undefined ? { check: simple.check } : {}),
        ...(waits ? { progress: true } : {}),
      })).finally(stopWaits);
    } catch (error) {
      if (error instanceof UnreachableError) return null; // gone: the full path starts one
      if (error instanceof RpcError) {
        printError(output, String(error.data?.kind ?? "Usage"), error.message);
        return 2;
      }
      printError(
        output,
        "Server",
        `${messageOf(error)}; the run may have started: see \`gateway history\``,
      );
      return 1;
    }
    // Only `--yield` answers before the run ends, and `--yield` takes the full path.
    const document = answer as RunDocument;
    if (simple.json) output.out(`${JSON.stringify(document, null, 2)}\n`);
    else printRun(document, output, { streamed: false });
    return runExitCode(document);
  } finally {
    await client.close();
  }
}

/**
 * Reads piped stdin to its end ("" on a terminal) with plain reads: a `Response` over
 * `Deno.stdin.readable` costs the fast path more CPU than the rest of its reading together.
 */
export async function readStdinText(): Promise<string> {
  if (Deno.stdin.isTerminal()) return "";
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}
