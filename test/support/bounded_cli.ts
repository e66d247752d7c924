/**
 * Runs the CLI with a deadline: for invocations that must fail (a refused `gateway server`), so
 * a regression that makes them serve forever fails the test instead of hanging the suite.
 * @module
 */

import { type CliResult, MAIN } from "./gateway_harness.ts";

/**
 * Deno's cache directory as this process sees it, so a CLI started with another `HOME` still
 * finds the cached npm packages instead of fetching them again.
 */
export function denoCacheDir(): string {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? "/tmp";
  if (Deno.build.os === "darwin") return `${home}/Library/Caches/deno`;
  return `${Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`}/deno`;
}

/** The environment a CLI needs and nothing else: the data dir, HOME, PATH, DENO_DIR. */
export function minimalEnv(dataDir: string): Record<string, string> {
  return {
    GATEWAY_DATA_DIR: dataDir,
    NO_COLOR: "1",
    HOME: Deno.env.get("HOME") ?? dataDir,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: denoCacheDir(),
  };
}

/** Spawns the CLI; past `timeoutMs` its process is killed (by pid) and `timedOut` is set. */
export async function boundedCli(
  args: string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<CliResult & { timedOut: boolean }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, ...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, options.timeoutMs ?? 20_000);
  try {
    const out = await child.output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}
