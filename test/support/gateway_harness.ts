/**
 * End-to-end test support: a temporary root and data dir, the real CLI spawned as a user runs
 * it, and a server that is always stopped (by its pid) when the test ends, even on failure.
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GatewayClient } from "../../src/client/gateway_client.ts";

/** The full CLI's entry point (what the installed command hands every non-fast invocation). */
export const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
/** The installed command's entry: the bundled fast path, run without deno.json or its lock. */
export const CLI_ENTRY = fileURLToPath(
  new URL("../../src/cli/fast_main.bundle.js", import.meta.url),
);
/**
 * `deno` arguments that start the CLI as `deno task install` installs it (its shim adds only an
 * empty config of its own); the arguments of the invocation follow.
 */
export const CLI_RUN_ARGS: readonly string[] = [
  "run",
  "--allow-all",
  "--no-prompt",
  "--quiet",
  "--no-config",
  "--v8-flags=--single-threaded",
  CLI_ENTRY,
];
/** The repository root (the bundled default root). */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** What a CLI invocation produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Files to place in a temporary root, by path relative to it. */
export type RootFiles = Record<string, string>;

/** A prepared root + data dir, and ways to drive the gateway in it. */
export interface GatewayHarness {
  /** The root directory (`ROOT/tools`, `ROOT/scripts` …), or the repo for the bundled root. */
  root: string;
  dataDir: string;
  /** A scratch working directory for CLI calls. */
  cwd: string;
  /** Runs the CLI with `--root ROOT` and this data dir. */
  cli(
    args: string[],
    options?: { stdin?: string; env?: Record<string, string>; cwd?: string },
  ): Promise<CliResult>;
  /**
   * Starts the CLI with `--root ROOT` and this harness's environment as a live child, without
   * waiting, for tests that read its output or drive it while it runs. stdout and stderr are
   * piped. `detached` makes it lead a process group of its own, so a test can signal the whole
   * group as a terminal's Ctrl-C does.
   */
  spawnCli(
    args: string[],
    options?: { stdin?: "null" | "piped"; detached?: boolean },
  ): Deno.ChildProcess;
  /** Connects a WebSocket JSON-RPC client (server must be running). */
  client(): Promise<GatewayClient>;
  /** Port and token of the running server (starts it when needed). */
  server(): Promise<{ port: number; token: string; pid: number }>;
  /** Stops the server (by pid) and removes the temp dirs. */
  dispose(): Promise<void>;
}

/** Spawns the CLI and collects its output. */
export async function runCli(
  args: string[],
  options: { env: Record<string, string>; cwd: string; stdin?: string },
): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...CLI_RUN_ARGS, ...args],
    cwd: options.cwd,
    // Only what the test sets: `deno task test` puts INIT_CWD (the caller's directory, which
    // the CLI honours) in our environment, and it must not leak into the CLI under test.
    clearEnv: true,
    env: options.env,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

async function writeFiles(dir: string, files: RootFiles): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    await Deno.mkdir(join(full, ".."), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/**
 * Prepares a gateway. `files` builds a temporary root (omit it with `bundled: true` to use the
 * repository's own tools). The server is started lazily by the first CLI call that needs it.
 */
export async function createHarness(
  options: { files?: RootFiles; bundled?: boolean; env?: Record<string, string> } = {},
): Promise<GatewayHarness> {
  const base = await Deno.makeTempDir({ prefix: "gateway-test-" });
  const dataDir = join(base, "data");
  const cwd = join(base, "work");
  await Deno.mkdir(cwd, { recursive: true });
  let root = REPO.replace(/\/$/, "");
  if (!options.bundled) {
    root = join(base, "root");
    await Deno.mkdir(join(root, "tools"), { recursive: true });
    await writeFiles(root, options.files ?? {});
  }
  const env = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: "0",
    NO_COLOR: "1",
    HOME: Deno.env.get("HOME") ?? base,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    ...options.env,
  };
  const readState = async () => {
    try {
      return JSON.parse(await Deno.readTextFile(join(dataDir, "server.json"))) as {
        pid: number;
        port: number;
      };
    } catch {
      return null;
    }
  };
  const harness: GatewayHarness = {
    root,
    dataDir,
    cwd,
    cli: (args, o = {}) =>
      runCli(["--root", root, ...args], {
        env: { ...env, ...o.env },
        cwd: o.cwd ?? cwd,
        ...(o.stdin !== undefined ? { stdin: o.stdin } : {}),
      }),
    spawnCli: (args, o = {}) =>
      new Deno.Command(Deno.execPath(), {
        args: [...CLI_RUN_ARGS, "--root", root, ...args],
        cwd,
        clearEnv: true,
        env,
        stdin: o.stdin ?? "null",
        stdout: "piped",
        stderr: "piped",
        detached: o.detached ?? false,
      }).spawn(),
    server: async () => {
      let state = await readState();
      if (!state) {
        const started = await harness.cli(["start"]);
        if (started.code !== 0) throw new Error(`gateway start failed: ${started.stderr}`);
        state = await readState();
      }
      if (!state) throw new Error("server.json missing after gateway start");
      const token = (await Deno.readTextFile(join(dataDir, "token"))).trim();
      return { port: state.port, token, pid: state.pid };
    },
    client: async () => {
      const { port, token } = await harness.server();
      return await GatewayClient.connect({ host: "127.0.0.1", port, token });
    },
    dispose: async () => {
      const state = await readState();
      if (state) {
        try {
          Deno.kill(state.pid, "SIGTERM");
        } catch {
          // already gone
        }
        for (let i = 0; i < 100; i++) {
          try {
            Deno.kill(state.pid, "SIGCONT");
          } catch {
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        try {
          Deno.kill(state.pid, "SIGKILL");
        } catch {
          // stopped in time
        }
      }
      await Deno.remove(base, { recursive: true }).catch(() => undefined);
    },
  };
  return harness;
}

/** Runs `fn` with a fresh harness and always disposes of it. */
export async function withHarness<T>(
  options: Parameters<typeof createHarness>[0],
  fn: (harness: GatewayHarness) => Promise<T>,
): Promise<T> {
  const harness = await createHarness(options);
  try {
    return await fn(harness);
  } finally {
    await harness.dispose();
  }
}
