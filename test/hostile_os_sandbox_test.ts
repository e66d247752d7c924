/**
 * The operating-system layer under Deno's permissions (`exec.osSandbox`), attacked as a script
 * holding a broad grant and as another local user (uid 65534, through `setpriv`) who plants a
 * symlink in a shared directory: Deno's `--deny-read=DATA` compares the path as written, so a
 * link inside a granted directory reached the data dir and its token. Inside the sandbox's
 * mount namespace the data dir, the home directory and the other roots' state do not exist.
 * Linux with bubblewrap only (the tests say so and stop elsewhere).
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { findOsSandboxTools } from "../src/process/os_sandbox.ts";
import { storagePaths } from "../src/exec/runner_process.ts";
import { RUNNER_SCRATCH_BYTES } from "../src/exec/runner_view.ts";
import { pollUntil } from "./support/poll_until.ts";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import {
  parseRun,
  type RunDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

const tools = await findOsSandboxTools();
const HAS_BWRAP = tools.sandbox.kind === "bwrap";
const IS_ROOT = Deno.uid() === 0;
const SETPRIV = tools.setpriv;

async function cliRun(gw: GatewayHarness, args: string[]): Promise<RunDocument> {
  const result = await gw.cli(["exec", "--json", "--no-check", ...args]);
  return parseRun(result.stdout);
}

/** A script that reads `path` and answers its text, or the name of the error it met. */
function reads(path: string): string {
  return `(() => {
    try { return Deno.readTextFileSync(${JSON.stringify(path)}); }
    catch (e) { return "refused: " + (e as Error).name; }
  })()`;
}

/** Runs `argv` as uid/gid 65534 with no groups: another local user. */
async function asOtherUser(argv: string[]): Promise<void> {
  const output = await new Deno.Command(SETPRIV!, {
    args: ["--reuid=65534", "--regid=65534", "--clear-groups", ...argv],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
}

/**
 * A scene for the attacks: a home holding an SSH key, the user's gateway data dir holding
 * another root's token, and a sticky world-writable directory (like /tmp) shared with
 * another user. The data dir is the harness's own.
 */
async function scene(base: string) {
  const home = join(base, "home");
  await Deno.mkdir(join(home, ".ssh"), { recursive: true });
  await Deno.writeTextFile(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY of the user");
  const xdg = join(base, "xdg");
  const otherRoot = join(xdg, "gateway", "roots", "other-0123abcd");
  await Deno.mkdir(otherRoot, { recursive: true });
  await Deno.writeTextFile(join(otherRoot, "token"), "token of another root");
  const shared = join(base, "shared");
  await Deno.mkdir(shared);
  await Deno.chmod(shared, 0o1777);
  const granted = join(base, "granted");
  await Deno.mkdir(granted);
  await Deno.writeTextFile(join(granted, "ok.txt"), "fine");
  // The other user must reach the shared directory through the base.
  await Deno.chmod(base, 0o755);
  return { home, xdg, otherToken: join(otherRoot, "token"), shared, granted };
}

function env(where: Awaited<ReturnType<typeof scene>>): Record<string, string> {
  const realHome = Deno.env.get("HOME") ?? "/root";
  return {
    HOME: where.home,
    XDG_DATA_HOME: where.xdg,
    // The server's own modules stay in the real cache (the fake home has none).
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(realHome, ".cache", "deno"),
  };
}

Deno.test({
  name:
    "with exec.osSandbox required, a script granted --allow-read=/ cannot read the data dir, ~/.ssh or another root's token, even through another user's symlink",
  ignore: !HAS_BWRAP || !IS_ROOT || SETPRIV === null,
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-os-sandbox-" }));
  try {
    const where = await scene(base);
    const files = await runTestRoot({
      config: {
        exec: {
          osSandbox: "required",
          maxPermissions: { read: true, write: [where.granted] },
        },
      },
    });
    await withRunHarness({ files, env: env(where) }, async (gw) => {
      const token = join(gw.dataDir, "token");
      // Another user plants a link to the token in the directory they share with us.
      await asOtherUser(["ln", "-s", token, join(where.shared, "notes.txt")]);

      await t.step("the other user's symlink to the token reads nothing", async () => {
        const document = await cliRun(gw, [
          `--allow-read=${where.shared}`,
          reads(join(where.shared, "notes.txt")),
        ]);
        assert.equal(document.result, "refused: NotFound", JSON.stringify(document));
      });

      await t.step("the data dir does not exist, even under --allow-read=/", async () => {
        const document = await cliRun(gw, [
          "--allow-read=/",
          `[${JSON.stringify(gw.dataDir)}, ${JSON.stringify(join(gw.dataDir, "gateway.db"))}]
            .map((p) => { try { Deno.statSync(p); return "exists"; } catch (e) { return e.name; } })`,
        ]);
        // Deno's own deny list answers first for the path as written: either way, no data dir.
        assert.ok(
          Array.isArray(document.result) &&
            document.result.every((r) => r === "NotFound" || r === "NotCapable"),
          JSON.stringify(document),
        );
      });

      await t.step("~/.ssh is not there under --allow-read=/", async () => {
        const document = await cliRun(gw, [
          "--allow-read=/",
          reads(join(where.home, ".ssh", "id_ed25519")),
        ]);
        assert.equal(document.result, "refused: NotFound", JSON.stringify(document));
      });

      await t.step("another root's token is not there under --allow-read=/", async () => {
        const document = await cliRun(gw, ["--allow-read=/", reads(where.otherToken)]);
        assert.equal(document.result, "refused: NotFound", JSON.stringify(document));
      });

      await t.step("what is granted is there: read, and write inside the grant", async () => {
        const document = await cliRun(gw, [
          `--allow-read=${where.granted}`,
          `--allow-write=${where.granted}`,
          `Deno.writeTextFileSync(${JSON.stringify(join(where.granted, "new.txt"))}, "written");
          [Deno.readTextFileSync(${JSON.stringify(join(where.granted, "ok.txt"))}),
           Deno.readTextFileSync(${JSON.stringify(join(where.granted, "new.txt"))})]`,
        ]);
        assert.deepEqual(document.result, ["fine", "written"], JSON.stringify(document));
        assert.equal(await Deno.readTextFile(join(where.granted, "new.txt")), "written");
      });

      await t.step("a pooled run with no grant still runs, in a namespace of its own", async () => {
        const document = await cliRun(gw, [
          "[Deno.pid, await tools.probe.echo({ nonce: 'n1' })]",
        ]);
        assert.equal(document.ok, true, JSON.stringify(document));
        // The runner is the first program of its PID namespace (bwrap's reaper is pid 1).
        assert.deepEqual(document.result, [2, { nonce: "n1" }]);
      });

      await t.step(
        "a run leaves nothing on the host: its script goes, and no compiled copy or web storage is written",
        async () => {
          const document = await cliRun(gw, [
            `const file: string = import.meta.filename!;
            localStorage.setItem("k", "v");
            [file, Deno.mainModule, localStorage.getItem("k")]`,
          ]);
          const [file, main, stored] = document.result as [string, string, string];
          assert.equal(stored, "v", JSON.stringify(document));
          const denoDir = env(where).DENO_DIR!;
          const compiled = join(denoDir, "gen", "file", `${file.replace(/^\/+/, "")}.js`);
          const absent = (path: string) => Deno.stat(path).then(() => false, () => true);
          assert.ok(await absent(compiled), `a compiled copy at ${compiled}`);
          for (const path of storagePaths(denoDir, main)) {
            assert.ok(await absent(path), `web storage on the host at ${path}`);
          }
          await pollUntil("the run's script to be removed", () => absent(file), {
            timeoutMs: 5_000,
          });
        },
      );

      await t.step(
        "a typed script is compiled into the runner's own cache directory, not retried against the host's read-only one",
        async () => {
          const denoDir = env(where).DENO_DIR!;
          const gen = join(denoDir, "gen");
          // The script reads the copy Deno compiled it to before running it: it is there only
          // where the runner has a compiled-code directory it can write.
          const document = await cliRun(gw, [
            `--allow-read=${gen}`,
            `const file: string = import.meta.filename!;
            const compiled = ${JSON.stringify(gen)} + "/file" + file + ".js";
            Deno.readTextFileSync(compiled).includes("import.meta.filename")`,
          ]);
          assert.equal(document.result, true, JSON.stringify(document));
        },
      );

      await t.step(
        "a script that has Deno compile modules it makes itself cannot grow that directory past its bound",
        async () => {
          const gen = join(env(where).DENO_DIR!, "gen");
          // Twelve modules of 1 MB each: Deno's compiled copies (with their source maps) come to
          // several times the bound.
          const document = await cliRun(gw, [
            `--allow-read=${gen}`,
            `for (let i = 0; i < 12; i++) {
              const source = "export const n: number = " + i + "; // " + "x".repeat(1_000_000);
              await import("data:application/typescript;base64," + btoa(source));
            }
            const size = (dir: string): number => {
              let total = 0;
              for (const entry of Deno.readDirSync(dir)) {
                const path = dir + "/" + entry.name;
                total += entry.isDirectory ? size(path) : Deno.statSync(path).size;
              }
              return total;
            };
            size(${JSON.stringify(gen)})`,
          ]);
          assert.equal(document.ok, true, JSON.stringify(document));
          const bytes = document.result as number;
          assert.ok(bytes > 0 && bytes <= RUNNER_SCRATCH_BYTES, `${bytes} bytes compiled`);
        },
      );
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test({
  name:
    "with exec.osSandbox off, the other user's symlink reaches the token: the attack the layer closes",
  ignore: !IS_ROOT || SETPRIV === null,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-os-sandbox-" }));
  try {
    const where = await scene(base);
    const files = await runTestRoot({
      config: { exec: { osSandbox: "off", maxPermissions: { read: true } } },
    });
    await withRunHarness({ files, env: env(where) }, async (gw) => {
      const token = join(gw.dataDir, "token");
      await gw.server();
      await asOtherUser(["ln", "-s", token, join(where.shared, "notes.txt")]);
      const document = await cliRun(gw, [
        `--allow-read=${where.shared}`,
        reads(join(where.shared, "notes.txt")),
      ]);
      // The token itself (or its mask, where the answer masks it): read through the link.
      const secret = (await Deno.readTextFile(token)).trim();
      assert.ok(
        [secret, "[REDACTED]"].includes(String(document.result).trim()),
        JSON.stringify(document),
      );
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
