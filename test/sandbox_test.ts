/**
 * End-to-end from `gateway exec --json`: a script gets no network, file, environment,
 * subprocess or FFI access and cannot import remote or npm code; each attempt fails with
 * `PermissionDenied` naming the permission, and witnesses see no traffic.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type GatewayHarness, withHarness } from "./support/gateway_harness.ts";
import { startCountingListener } from "./support/counting_listener.ts";
import { pollUntil } from "./support/poll_until.ts";
import { RUNNER_DISCOVERY } from "../src/exec/runner_flags.ts";

interface RunError {
  kind: string;
  message: string;
  hint?: string;
}

/** Runs `source` with `gateway exec --json` and returns the run's error (the run must fail). */
async function denied(gw: GatewayHarness, source: string): Promise<RunError> {
  const result = await gw.cli(["exec", "--json", source]);
  assert.equal(result.code, 1, `exit code for ${source}: ${result.stdout}${result.stderr}`);
  const document = JSON.parse(result.stdout) as { ok: boolean; error?: RunError };
  assert.equal(document.ok, false);
  assert.ok(document.error, result.stdout);
  return document.error;
}

function assertDenied(error: RunError, permission: string, detail?: RegExp): void {
  assert.equal(error.kind, "PermissionDenied", JSON.stringify(error));
  assert.match(error.message, new RegExp(`\\b${permission} access`), error.message);
  if (detail) assert.match(error.message, detail);
}

Deno.test("a script run by gateway exec is denied network, files, env, subprocesses, FFI and remote imports", async (t) => {
  const witness = startCountingListener();
  try {
    await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
      const { port, token, pid } = await gw.server();

      await t.step("fetch to https://example.com is denied", async () => {
        assertDenied(await denied(gw, 'await fetch("https://example.com")'), "net", /example\.com/);
      });

      await t.step(
        "fetch, Deno.connect and WebSocket to a local listener never reach it",
        async () => {
          const url = `http://127.0.0.1:${witness.port}/`;
          assertDenied(await denied(gw, `await fetch(${JSON.stringify(url)})`), "net");
          assertDenied(
            await denied(
              gw,
              `await Deno.connect({ hostname: "127.0.0.1", port: ${witness.port} })`,
            ),
            "net",
            new RegExp(`127\\.0\\.0\\.1:${witness.port}`),
          );
          const ws = await denied(gw, `new WebSocket("ws://127.0.0.1:${witness.port}/")`);
          assert.equal(ws.kind, "PermissionDenied", JSON.stringify(ws));
          assert.equal(witness.connections(), 0);
        },
      );

      await t.step("fetch to the gateway's own port is denied", async () => {
        assertDenied(
          await denied(gw, `await fetch("http://127.0.0.1:${port}/health")`),
          "net",
        );
      });

      await t.step("Deno.resolveDns is denied", async () => {
        assertDenied(await denied(gw, 'await Deno.resolveDns("example.com", "A")'), "net");
      });

      await t.step("reading /etc/passwd, the token file and gateway.db is denied", async () => {
        for (
          const file of ["/etc/passwd", join(gw.dataDir, "token"), join(gw.dataDir, "gateway.db")]
        ) {
          assertDenied(
            await denied(gw, `await Deno.readTextFile(${JSON.stringify(file)})`),
            "read",
            new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")),
          );
        }
        assertDenied(await denied(gw, 'Deno.readDirSync("/")'), "read");
      });

      await t.step(
        "the runner's discovery code is not readable, with or without search()",
        async () => {
          const read = `await Deno.readTextFile(${JSON.stringify(RUNNER_DISCOVERY)})`;
          assertDenied(await denied(gw, read), "read");
          // A script that searches has it loaded, and its grant dropped, before the script runs.
          assertDenied(await denied(gw, `search("x");\n${read}`), "read");
        },
      );

      await t.step("writing outside the sandbox is denied", async () => {
        const target = join(gw.cwd, "escaped.txt");
        assertDenied(
          await denied(gw, `await Deno.writeTextFile(${JSON.stringify(target)}, "x")`),
          "write",
        );
        await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
      });

      await t.step("Deno.env.get is denied, naming env", async () => {
        assertDenied(await denied(gw, 'Deno.env.get("HOME")'), "env", /"HOME"/);
      });

      await t.step("Deno.env.toObject is denied", async () => {
        const error = await denied(gw, "Deno.env.toObject()");
        assert.equal(error.kind, "PermissionDenied", JSON.stringify(error));
      });

      await t.step("new Deno.Command with a bare name is denied, naming run", async () => {
        assertDenied(await denied(gw, 'new Deno.Command("ls").outputSync()'), "run", /"ls"/);
      });

      await t.step("new Deno.Command with a path is denied, naming run", async () => {
        assertDenied(
          await denied(gw, 'await new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()'),
          "run",
          /\/bin\/sh/,
        );
      });

      await t.step("Deno.dlopen is denied, naming ffi", async () => {
        assertDenied(await denied(gw, 'Deno.dlopen("libc.so.6", {})'), "ffi");
      });

      await t.step(
        "a remote import is refused as remote imports being off, not as a network error",
        async () => {
          const error = await denied(gw, 'await import("https://esm.sh/x")');
          assert.equal(error.kind, "PermissionDenied", JSON.stringify(error));
          assert.match(error.message, /remote and npm imports are off/);
        },
      );

      await t.step("npm: and jsr: imports are refused", async () => {
        const npm = await denied(gw, 'await import("npm:left-pad")');
        assert.equal(npm.kind, "PermissionDenied", JSON.stringify(npm));
        assert.match(npm.message, /imports are off/);
        const jsr = await denied(gw, 'await import("jsr:@std/path")');
        assert.equal(jsr.kind, "PermissionDenied", JSON.stringify(jsr));
      });

      await t.step("an import from a local HTTP server never reaches it", async () => {
        const url = `http://127.0.0.1:${witness.port}/x.ts`;
        const error = await denied(gw, `await import(${JSON.stringify(url)})`);
        assert.equal(error.kind, "PermissionDenied", JSON.stringify(error));
        const computed = await denied(
          gw,
          `const secret = "s3cret"; await import("http://127.0.0.1:${witness.port}/" + secret + ".ts")`,
        );
        assert.equal(computed.kind, "PermissionDenied", JSON.stringify(computed));
        // A worker's load failure reaches the script as a worker error event, not a rejection.
        const worker = await gw.cli([
          "exec",
          "--json",
          `new Worker("http://127.0.0.1:${witness.port}/w.ts", { type: "module" }); await new Promise((r) => setTimeout(r, 300))`,
        ]);
        assert.match(JSON.parse(worker.stdout).stderr, /Requires import access/);
        assert.equal(witness.connections(), 0);
      });

      await t.step(
        "the runner processes carry no token in their command line or environment",
        async () => {
          // The pool refills after each run's answer: wait for a warm runner to be there.
          const children = await pollUntil("a warm runner process of the server", async () => {
            const found: string[] = [];
            for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
              const text = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/children`)
                .catch(() => "");
              for (const child of text.trim().split(/\s+/).filter((p) => p !== "")) {
                const cmdline = await Deno.readTextFile(`/proc/${child}/cmdline`).catch(() => "");
                if (cmdline.includes("runner/runner_main.")) found.push(child);
              }
            }
            return found.length > 0 ? found : undefined;
          });
          const runners: string[] = [];
          for (const child of children) {
            let cmdline: string;
            try {
              cmdline = (await Deno.readTextFile(`/proc/${child}/cmdline`)).replaceAll("\0", " ");
            } catch {
              continue; // exited meanwhile
            }
            if (!cmdline.includes("runner/runner_main.")) continue;
            runners.push(child);
            assert.ok(!cmdline.includes(token), `runner ${child}'s command line holds the token`);
            const environ = await Deno.readTextFile(`/proc/${child}/environ`);
            assert.ok(!environ.includes(token), `runner ${child}'s environment holds the token`);
            const names = environ.split("\0").filter((e) => e !== "").map((e) => e.split("=")[0]);
            assert.ok(!names.includes("HOME"), `runner ${child} sees HOME: ${names.join(", ")}`);
            assert.ok(!names.includes("GATEWAY_DATA_DIR"), `runner ${child}: ${names.join(", ")}`);
          }
          assert.ok(runners.length > 0, "no warm runner process found");
        },
      );
    });
  } finally {
    witness.close();
  }
});

// Deno's message for `Deno.env.toObject()` quotes no name ("Requires env access, run again…");
// the permission must still be named.
Deno.test({
  name: "Deno.env.toObject in a script is denied with a message naming env",
  fn: async () => {
    await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
      const error = await denied(gw, "Deno.env.toObject()");
      assertDenied(error, "env");
      assert.equal(error.hint, "env");
      assert.doesNotMatch(error.message, /unknown/);
    });
  },
});
