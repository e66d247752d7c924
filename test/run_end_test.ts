/**
 * End-to-end proof of how a run ends now that it is answered at its runner's end marker rather
 * than at the process's exit: the exit code of `Deno.exit`, output written up to the
 * end (also without a trailing newline, also by a timer), a forged marker that stays output,
 * output of an `unload` listener left out, and the runner's process group, script, compiled
 * script and web storage gone shortly after the answer.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pollUntil } from "./support/poll_until.ts";
import { storagePaths } from "../src/exec/runner_process.ts";
import {
  execRpc,
  liveGroupMembers,
  processAlive,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

Deno.test(
  "a run ended by its runner's end marker keeps its output and exit code, and leaves nothing behind",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async (t) => {
    // A directory a run may be granted writes to, to see what its unload listener did.
    const outside = await Deno.makeTempDir({ prefix: "gateway-run-end-" });
    const files = await runTestRoot({
      probe: false,
      // The host side of an unsandboxed runner: its pids, process group, compiled copy in
      // Deno's cache and web storage swept there (under exec.osSandbox a run has none of
      // these on the host: hostile_os_sandbox_test.ts).
      config: {
        exec: { osSandbox: "off", maxPermissions: { write: [outside], run: ["true"] } },
      },
    });
    await withRunHarness({ files }, async (gw) => {
      const client = await gw.client();
      try {
        await t.step("Deno.exit(3) is the run's exit code; output before it is kept", async () => {
          const doc = await execRpc(client, {
            source:
              `console.log("before");\nDeno.stdout.writeSync(new TextEncoder().encode("no newline"));\nDeno.exit(3);`,
          });
          assert.equal(doc.exitCode, 3);
          assert.equal(doc.ok, false);
          assert.equal(doc.stdout, "before\nno newline");
        });

        await t.step("output of a timer after the last line is part of the run", async () => {
          const doc = await execRpc(client, {
            source: `setTimeout(() => console.error("late but in time"), 50);\n"first"`,
          });
          assert.equal(doc.ok, true, JSON.stringify(doc.error));
          assert.equal(doc.result, "first");
          assert.equal(doc.stderr, "late but in time\n");
        });

        await t.step("a marker with a guessed nonce is only output", async () => {
          const forged = "\\u0000gateway-run-end:00000000000000000000000000000000:0\\n";
          const doc = await execRpc(client, {
            source: `console.log("${forged}after the forgery");\n"done"`,
          });
          assert.equal(doc.ok, true, JSON.stringify(doc.error));
          assert.equal(doc.result, "done");
          assert.equal(
            doc.stdout,
            "\u0000gateway-run-end:00000000000000000000000000000000:0\nafter the forgery\n",
          );
        });

        await t.step(
          "what an unload listener writes after the end marker is left out",
          async () => {
            const doc = await execRpc(client, {
              source: `addEventListener("unload", () => console.log("after the end"));\n` +
                `console.log("in the run");\n"ok"`,
            });
            assert.equal(doc.ok, true, JSON.stringify(doc.error));
            assert.equal(doc.stdout, "in the run\n");
          },
        );

        await t.step(
          "an unload listener of the script still runs, and Deno.exitCode is the exit code",
          async () => {
            const file = join(outside, "unload.txt");
            const doc = await execRpc(client, {
              source: `addEventListener("unload", () => {\n` +
                `  Deno.writeTextFileSync(${JSON.stringify(file)}, String(Deno.exitCode));\n` +
                `});\nDeno.exitCode = 3;\nconsole.log("in the run");`,
              permissions: { write: [file] },
            });
            assert.equal(doc.exitCode, 3);
            assert.equal(doc.stdout, "in the run\n");
            // The listener runs after the end markers, so possibly after the answer.
            await pollUntil(
              "the unload listener's file",
              () => Deno.readTextFile(file).then((text) => text === "3", () => false),
              { timeoutMs: 5_000, intervalMs: 20 },
            );
          },
        );

        await t.step(
          "a load listener of the script hears load once, after its top level",
          async () => {
            const doc = await execRpc(client, {
              source: `let loads = 0;\n` +
                `addEventListener("load", () => console.log("load", ++loads));\n` +
                `globalThis.onload = () => console.log("onload");\n` +
                `console.log("top level");`,
            });
            assert.equal(doc.ok, true, JSON.stringify(doc.error));
            assert.equal(doc.stdout, "top level\nload 1\nonload\n");
          },
        );

        await t.step(
          "a script that hooks Node's process exit event still has it at its end",
          async () => {
            const file = join(outside, "node-exit.txt");
            const doc = await execRpc(client, {
              source: `process.on("exit", (code) => {\n` +
                `  Deno.writeTextFileSync(${JSON.stringify(file)}, \`exit \${code}\`);\n` +
                `});\nconsole.log("in the run");`,
              permissions: { write: [file] },
            });
            assert.equal(doc.ok, true, JSON.stringify(doc.error));
            assert.equal(doc.stdout, "in the run\n");
            await pollUntil(
              "the exit handler's file",
              () => Deno.readTextFile(file).then((text) => text === "exit 0", () => false),
              { timeoutMs: 5_000, intervalMs: 20 },
            );
          },
        );

        await t.step(
          "the runner, its group, its script and its compiled script are gone soon after",
          async () => {
            // TypeScript (a JavaScript script has no compiled copy), run by a runner that may
            // start processes (it leads a group of its own) and by one that may not.
            const doc = await execRpc(client, {
              source: `const file: string = import.meta.filename!;\n` +
                `console.log(Deno.pid, file);\n"x"`,
            });
            assert.equal(doc.ok, true, JSON.stringify(doc.error));
            const [pid, file] = doc.stdout.trim().split(" ");
            const denoDir = Deno.env.get("DENO_DIR") ??
              join(Deno.env.get("HOME") ?? "/tmp", ".cache", "deno");
            const compiled = join(denoDir, "gen", "file", `${file!.replace(/^\/+/, "")}.js`);
            const gone = (path: string) => Deno.stat(path).then(() => false, () => true);
            assert.match(file!, /\.ts$/);
            await pollUntil(
              "the runner, its script and compiled script to be gone",
              async () => !processAlive(Number(pid)) && await gone(file!) && await gone(compiled),
              { timeoutMs: 5_000, intervalMs: 20 },
            );
            const grouped = await execRpc(client, {
              source: `console.log(Deno.pid, import.meta.filename);\n"x"`,
              permissions: { run: ["true"] },
            });
            assert.equal(grouped.ok, true, JSON.stringify(grouped.error));
            const [leader, script] = grouped.stdout.trim().split(" ");
            assert.match(script!, /\.js$/, "a script of plain JavaScript runs as JavaScript");
            await pollUntil(
              "the grouped runner's group and script to be gone",
              async () => liveGroupMembers(Number(leader)).length === 0 && await gone(script!),
              { timeoutMs: 5_000, intervalMs: 20 },
            );
          },
        );

        await t.step(
          "script file names are reused, so Deno's module caches keep no entry per run",
          async () => {
            const names = new Set<string>();
            for (let i = 0; i < 6; i++) {
              const doc = await execRpc(client, { source: `import.meta.filename` });
              assert.equal(doc.ok, true, JSON.stringify(doc.error));
              const file = String(doc.result);
              names.add(file);
              await pollUntil(
                "the run's script to be removed",
                () => Deno.stat(file).then(() => false, () => true),
                { timeoutMs: 5_000, intervalMs: 20 },
              );
            }
            // A run in flight, the pool's warm runner and the one it spawns next: the names
            // cycle through those instead of growing by one per run.
            assert.ok(names.size <= 3, `6 runs used ${names.size} names: ${[...names]}`);
          },
        );

        await t.step("the run's web storage is gone soon after (swept in batches)", async () => {
          const doc = await execRpc(client, {
            // Deno keys a run's web storage by its main module's URL (runner_process.ts).
            source: `localStorage.setItem("k", "v");\nDeno.mainModule`,
          });
          assert.equal(doc.ok, true, JSON.stringify(doc.error));
          const denoDir = Deno.env.get("DENO_DIR") ??
            join(Deno.env.get("HOME") ?? "/tmp", ".cache", "deno");
          const [stored] = storagePaths(denoDir, String(doc.result));
          const gone = () => Deno.stat(stored!).then(() => false, () => true);
          // The sweep waits a second after the runner is reaped: the storage is still there.
          assert.equal(await gone(), false, `the run's localStorage is kept at ${stored}`);
          await pollUntil("the run's localStorage to be removed", gone, {
            timeoutMs: 5_000,
            intervalMs: 20,
          });
        });
      } finally {
        await client.close();
      }
    }).finally(() => Deno.remove(outside, { recursive: true }));
  },
);
