/**
 * The other local user of the hostile tests: a Deno program run as uid and gid 65534 (nobody)
 * with no supplementary groups (`setpriv --reuid=65534 --regid=65534 --clear-groups`), from a
 * directory of its own. The tests run as root, which is what lets them switch; elsewhere they
 * are skipped ({@linkcode canActAsOtherUser}). The program talks to the test in JSON lines on
 * its stdout.
 * @module
 */

import { join } from "node:path";

/** The attacker's uid and gid. */
export const OTHER_UID = 65534;

/** Whether this process can start programs as {@linkcode OTHER_UID} (root, with `setpriv`). */
export function canActAsOtherUser(): boolean {
  if (Deno.uid() !== 0) return false;
  try {
    return Deno.statSync("/usr/bin/setpriv").isFile;
  } catch {
    return false;
  }
}

/** A program running as the other user, and its JSON lines. */
export interface OtherUserProcess {
  readonly pid: number;
  /** The next JSON line it printed (waits for it); throws when it ended without one. */
  next<T = Record<string, unknown>>(): Promise<T>;
  /** Ends it (SIGKILL) and waits; its stderr, for a failure's message. */
  stop(): Promise<string>;
  /** Waits until it exits on its own; its exit code and stderr. */
  done(): Promise<{ code: number; stderr: string }>;
}

/** A fresh directory the other user owns (its home, cache and program live there). */
export async function otherUserDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-other-user-" });
  await Deno.chmod(dir, 0o755);
  await Deno.chown(dir, OTHER_UID, OTHER_UID);
  return dir;
}

/**
 * Starts `source` (a Deno program, given `args`) as the other user, in `home` (from
 * {@linkcode otherUserDir}).
 */
export async function runAsOtherUser(
  home: string,
  source: string,
  args: readonly string[] = [],
): Promise<OtherUserProcess> {
  const file = join(home, `program-${crypto.randomUUID()}.ts`);
  await Deno.writeTextFile(file, source, { mode: 0o644 });
  const child = new Deno.Command("/usr/bin/setpriv", {
    args: [
      `--reuid=${OTHER_UID}`,
      `--regid=${OTHER_UID}`,
      "--clear-groups",
      "--",
      Deno.execPath(),
      "run",
      "--no-config",
      "--no-lock",
      "--quiet",
      "--allow-all",
      file,
      ...args,
    ],
    cwd: home,
    clearEnv: true,
    env: { HOME: home, DENO_DIR: join(home, ".deno"), PATH: "/usr/bin:/bin", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffered = "";
  const status = child.status;
  return {
    pid: child.pid,
    async next<T>() {
      for (;;) {
        const end = buffered.indexOf("\n");
        if (end >= 0) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          return JSON.parse(line) as T;
        }
        const { value, done } = await lines.read();
        if (done) {
          throw new Error(`the other user's program ended without a line: ${await stderr}`);
        }
        buffered += value;
      }
    },
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch {
        // ended already
      }
      await status;
      await lines.cancel().catch(() => undefined);
      return await stderr;
    },
    async done() {
      const { code } = await status;
      await lines.cancel().catch(() => undefined);
      return { code, stderr: await stderr };
    },
  };
}
