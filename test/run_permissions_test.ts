/**
 * End-to-end proof of a run's grants (docs/architecture.md#sandbox): `--allow-read/-net/-env/-run` (and RPC `permissions`)
 * open exactly what they name, relative paths resolve against the caller's directory, and
 * nothing goes beyond `exec.maxPermissions`.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import {
  execRpc,
  parseRun,
  type RunDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

async function cliRun(
  gw: GatewayHarness,
  args: string[],
  options: { cwd?: string } = {},
): Promise<RunDocument> {
  const result = await gw.cli(["exec", "--json", "--no-check", ...args], options);
  const document = parseRun(result.stdout);
  assert.equal(result.code, document.ok ? 0 : 1, result.stderr);
  return document;
}

Deno.test("grants open exactly what they name, within exec.maxPermissions", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const outside = await Deno.makeTempDir({ prefix: "gateway-grants-" });
  const granted = join(outside, "granted");
  await Deno.mkdir(granted);
  await Deno.writeTextFile(join(granted, "data.txt"), "granted text");
  await Deno.writeTextFile(join(granted, "other.txt"), "other text");
  await Deno.writeTextFile(join(outside, "secret.txt"), "secret text");
  const requests: string[] = [];
  const stub = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    requests.push(new URL(request.url).pathname);
    return new Response("stub answer");
  });
  const stubUrl = `http://127.0.0.1:${stub.addr.port}`;
  const files = await runTestRoot({
    config: {
      exec: {
        maxPermissions: {
          read: [granted],
          net: ["127.0.0.1"],
          env: ["GW_TEST_GRANTED"],
          run: ["echo"],
        },
      },
    },
  });
  try {
    await withRunHarness({
      files,
      env: { GW_TEST_GRANTED: "visible value", GW_TEST_HIDDEN: "hidden value" },
    }, async (gw) => {
      await t.step(
        "--allow-read=FILE (relative to the caller's cwd) reads that file only",
        async () => {
          const ok = await cliRun(gw, [
            "--allow-read=data.txt",
            `await Deno.readTextFile("data.txt")`,
          ], { cwd: granted });
          assert.equal(ok.result, "granted text", JSON.stringify(ok));
          const sibling = await cliRun(gw, [
            "--allow-read=data.txt",
            `await Deno.readTextFile("other.txt")`,
          ], { cwd: granted });
          assert.equal(sibling.error?.kind, "PermissionDenied");
          assert.equal(sibling.error?.hint, "read");
          assert.match(sibling.error?.message ?? "", /read access to ".*other\.txt"/);
        },
      );

      await t.step("--allow-read=DIR grants the directory, not its parent", async () => {
        const ok = await cliRun(gw, [
          `--allow-read=${granted}`,
          `await Deno.readTextFile(${JSON.stringify(join(granted, "other.txt"))})`,
        ]);
        assert.equal(ok.result, "other text");
        const parent = await cliRun(gw, [
          `--allow-read=${granted}`,
          `await Deno.readTextFile(${JSON.stringify(join(outside, "secret.txt"))})`,
        ]);
        assert.equal(parent.error?.kind, "PermissionDenied");
      });

      await t.step("a relative grant that leaves the ceiling is refused before start", async () => {
        const result = await gw.cli([
          "exec",
          "--json",
          "--allow-read=../secret.txt",
          `console.log("started")`,
        ], { cwd: granted });
        assert.equal(result.code, 1);
        const doc = parseRun(result.stdout);
        assert.equal(doc.error?.kind, "PermissionRefused");
        assert.ok(doc.error?.message.includes(`read "${join(outside, "secret.txt")}"`));
        assert.equal(doc.stdout, "");
      });

      await t.step("--allow-net=host reaches that host and no other", async () => {
        const ok = await cliRun(gw, [
          "--allow-net=127.0.0.1",
          `await (await fetch(${JSON.stringify(`${stubUrl}/granted`)})).text()`,
        ]);
        assert.equal(ok.result, "stub answer");
        assert.deepEqual(requests, ["/granted"]);
        const other = await cliRun(gw, [
          "--allow-net=127.0.0.1",
          `await fetch(${JSON.stringify(`http://localhost:${stub.addr.port}/other`)})`,
        ]);
        assert.equal(other.error?.kind, "PermissionDenied");
        assert.equal(other.error?.hint, "net");
        assert.match(other.error?.message ?? "", /localhost/);
        assert.deepEqual(requests, ["/granted"]);
      });

      await t.step("a host grant does not open remote imports from other hosts", async () => {
        for (const specifier of ["https://esm.sh/leftpad", "npm:leftpad"]) {
          const doc = await cliRun(gw, [
            "--allow-net=127.0.0.1",
            `await import(${JSON.stringify(specifier)})`,
          ]);
          assert.equal(doc.error?.kind, "PermissionDenied", `${specifier}: ${doc.error?.message}`);
          assert.equal(doc.error?.hint, "import");
        }
      });

      await t.step("--allow-env=NAME exposes that variable only", async () => {
        const ok = await cliRun(gw, [
          "--allow-env=GW_TEST_GRANTED",
          `Deno.env.get("GW_TEST_GRANTED")`,
        ]);
        assert.equal(ok.result, "visible value");
        const hidden = await cliRun(gw, [
          "--allow-env=GW_TEST_GRANTED",
          `Deno.env.get("GW_TEST_HIDDEN")`,
        ]);
        assert.equal(hidden.error?.kind, "PermissionDenied");
        assert.match(hidden.error?.message ?? "", /env access to "GW_TEST_HIDDEN"/);
        const refused = await cliRun(gw, ["--allow-env=GW_TEST_HIDDEN", `1`]);
        assert.equal(refused.error?.kind, "PermissionRefused");
      });

      await t.step("--allow-run=cmd runs that program only", async () => {
        const ok = await cliRun(gw, [
          "--allow-run=echo",
          `new TextDecoder().decode(new Deno.Command("echo", { args: ["from", "echo"] }).outputSync().stdout)`,
        ]);
        assert.equal(ok.result, "from echo\n");
        const other = await cliRun(gw, ["--allow-run=echo", `new Deno.Command("ls").outputSync()`]);
        assert.equal(other.error?.kind, "PermissionDenied");
        assert.equal(other.error?.hint, "run");
        const refused = await cliRun(gw, ["--allow-run=sh", `1`]);
        assert.equal(refused.error?.kind, "PermissionRefused");
        assert.match(refused.error?.message ?? "", /run "sh" is beyond exec\.maxPermissions\.run/);
      });

      await t.step("RPC permissions grant the same, with paths against the given cwd", async () => {
        const client = await gw.client();
        try {
          const ok = await execRpc(client, {
            source: `await Deno.readTextFile("data.txt")`,
            cwd: granted,
            permissions: { read: ["data.txt"] },
          });
          assert.equal(ok.result, "granted text", JSON.stringify(ok));
          const refused = await execRpc(client, {
            source: `1`,
            cwd: outside,
            permissions: { read: ["secret.txt"] },
          });
          assert.equal(refused.error?.kind, "PermissionRefused");
          const unrestricted = await execRpc(client, { source: `1`, permissions: { net: true } });
          assert.equal(unrestricted.error?.kind, "PermissionRefused");
          assert.match(unrestricted.error?.message ?? "", /net \(unrestricted\)/);
          // A sandbox that cannot start in the asked-for directory still answers, typed.
          const nowhere = await execRpc(client, {
            source: `1`,
            cwd: join(outside, "missing"),
            permissions: { env: ["GW_TEST_GRANTED"] },
          });
          assert.equal(nowhere.error?.kind, "Crashed");
          assert.match(nowhere.error?.message ?? "", /Cannot start the runner in ".*missing"/);
          assert.equal(nowhere.history, "saved");
        } finally {
          await client.close();
        }
      });
    });
  } finally {
    await stub.shutdown();
    await Deno.remove(outside, { recursive: true });
  }
});
