/**
 * The fast path of `gateway exec CODE` with a server already running: the command an agent pays
 * for from its shell on every run (issue 12). It loads only Deno APIs, the wire client and the
 * printer — no `node:` module, no zod, no command table — reads `server.json` and the token,
 * sends one `exec` over one WebSocket (spoken over plain TCP: `lean_gateway_client.ts`) and
 * prints the run as `gateway exec` does. Anything it
 * does not handle (a `.ts` file, `-`, `--timeout` and the other flags, a terminal on stdout,
 * no live server for the root) returns null before anything is sent, and the full CLI runs.
 * @module
 */

import { leanGatewayPaths } from "../config/lean_gateway_paths.ts";
import { type ServerState, serverStatePath } from "../config/server_state.ts";
import { readTokenSync } from "../config/token_file.ts";
import { HandshakeError, LeanGatewayClient } from "../client/lean_gateway_client.ts";
import { RpcError } from "../protocol/json_rpc.ts";
import type { RunDocument } from "../protocol/run_document.ts";
import type { CliOutput } from "./cli_context.ts";
import { printApprovalNotices } from "./approval_notice.ts";
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
  /**
   * Whether stdin is known to hold nothing without reading it (a terminal, `/dev/null`): then
   * the run may be sent before the server has accepted the connection.
   */
  stdinIsEmpty: () => boolean;
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
  const paths = leanGatewayPaths({
    flag: simple.rootFlag,
    env: input.env,
    cwd: input.cwd,
  });
  if (paths === null) return null;
  const params = (stdin: string) => ({
    source: simple.source,
    args: simple.args,
    stdin,
    cwd: input.cwd,
    client: "cli",
    ...(simple.check !== undefined ? { check: simple.check } : {}),
  });
  // With nothing to read on stdin, the run is asked for in the same write as the upgrade
  // request (one round trip less, and the handshake is checked while the server runs it).
  // Piped stdin is read only once the server has accepted, so the full path still gets it
  // when the fast path gives up.
  const sendEarly = simple.noStdin || input.stdinIsEmpty();
  let client: LeanGatewayClient;
  try {
    // No liveness probe of the pid: a dead server refuses the connection, and a stranger on
    // its port refuses the token; either way the full path takes over.
    const state = JSON.parse(Deno.readTextFileSync(serverStatePath(paths.dataDir))) as ServerState;
    if (state.root !== paths.rootDir || typeof state.port !== "number") return null;
    const token = readTokenSync(paths.dataDir);
    client = await LeanGatewayClient.open({
      host: "127.0.0.1",
      port: state.port,
      token,
      timeoutMs: 2000,
      ...(sendEarly ? { first: { method: "exec", params: params("") } } : {}),
    });
  } catch {
    return null; // no usable server: the full path starts one or explains why not
  }
  try {
    const early = client.firstAnswer;
    printApprovalNotices(client, {
      root: { dir: paths.rootDir, source: paths.rootSource, configFile: null },
      output,
    });
    try {
      await client.handshake;
    } catch (error) {
      // A refused upgrade ran nothing: the full path takes over. A server that did not answer
      // in time may still read the run sent behind it, so the run is not sent again.
      if (early === null || !(error instanceof HandshakeError) || error.answered) return null;
      printError(
        output,
        "Server",
        `${error.message}; the run was sent and may still start: see \`gateway history\``,
      );
      return 1;
    }
    let answer: unknown;
    try {
      answer = await (early ?? client.request("exec", params(await input.readStdin())));
    } catch (error) {
      if (error instanceof RpcError) {
        printError(output, String(error.data?.kind ?? "Usage"), error.message);
        return 2;
      }
      printError(output, "Internal", messageOf(error));
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
 * Whether stdin is a terminal or `/dev/null`: nothing to read either way (reading would take
 * the input away from the full CLI should the fast path give up). On Linux one `readlink` of
 * `/proc/self/fd/0` tells; two `stat`s cost the fast path ≈ 0.4 ms more (issue 12).
 */
export function stdinIsEmpty(): boolean {
  if (Deno.stdin.isTerminal()) return true;
  if (Deno.build.os === "linux") {
    try {
      return Deno.readLinkSync("/proc/self/fd/0") === "/dev/null";
    } catch {
      return false; // stdin closed, or no /proc: read it as before
    }
  }
  try {
    const stdin = Deno.statSync("/dev/stdin");
    const nothing = Deno.statSync("/dev/null");
    return stdin.isCharDevice === true && stdin.dev === nothing.dev && stdin.ino === nothing.ino;
  } catch {
    return false; // no /dev/stdin (Windows) or stdin closed: read it as before
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
