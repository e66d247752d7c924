/**
 * A hostile-script corpus: each step is an attack a sandboxed script (or a caller choosing its
 * grants) a red team made, run end to end the way the attacker would, and
 * the proof that it no longer works — no escape from the ceiling, no reach into another run,
 * nothing unbounded sent back, no secret kept.
 * @module
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import type { GatewayHarness } from "./support/gateway_harness.ts";
import {
  execRpc,
  parseRun,
  type RunDocument,
  runTestRoot,
  withRunHarness,
} from "./support/run_test_support.ts";

async function cliRun(gw: GatewayHarness, args: string[], stdin?: string): Promise<RunDocument> {
  const result = await gw.cli(
    ["exec", "--json", "--no-check", ...args],
    stdin === undefined ? {} : { stdin },
  );
  return parseRun(result.stdout);
}

const SECRET = "sk-test-planted-0123456789abcdef";

Deno.test(
  "hostile scripts cannot widen their grants, touch other runs, flood the caller or keep secrets",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async (t) => {
    const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-hostile-" }));
    const granted = join(outside, "granted");
    await Deno.mkdir(granted);
    await Deno.writeTextFile(join(granted, "ok.txt"), "fine");
    const files = await runTestRoot({
      config: {
        exec: {
          maxPermissions: {
            read: [granted],
            write: [granted],
            net: ["example.com:443"],
            env: ["GW_HOSTILE"],
          },
        },
        history: { redact: [SECRET], maxOutputBytes: 1024 },
      },
    });
    try {
      await withRunHarness({ files }, async (gw) => {
        const client = await gw.client();
        try {
          await t.step("`..` after a granted path is folded before the ceiling check", async () => {
            const document = await cliRun(gw, [
              `--allow-read=${granted}/../../${gw.dataDir.split("/").slice(-2).join("/")}`,
              'Deno.readTextFileSync("token")',
            ]);
            assert.equal(document.error?.kind, "PermissionRefused", JSON.stringify(document));
          });

          await t.step("a comma inside one value cannot become a second grant (RPC)", async () => {
            for (
              const permissions of [
                { read: [`${granted}/x,/`] },
                { write: [`${granted}/x,/tmp`] },
                { net: ["example.com:443,127.0.0.1"] },
                { env: ["GW_HOSTILE,HOME"] },
              ]
            ) {
              // Refused at the boundary as bad params, naming the value's path; nothing runs.
              await assert.rejects(
                execRpc(client, { source: "1", permissions }),
                (error: Error & { code?: number }) =>
                  error.code === -32602 && /permissions\.\w+\.0": .*must not contain ","/.test(
                    error.message,
                  ),
              );
            }
          });

          await t.step("a grant within the ceiling still works", async () => {
            const document = await cliRun(gw, [
              `--allow-read=${granted}`,
              `Deno.readTextFileSync(${JSON.stringify(join(granted, "ok.txt"))})`,
            ]);
            assert.equal(document.result, "fine", JSON.stringify(document));
          });

          await t.step("the runner's channel socket is gone before the script runs", async () => {
            const document = await execRpc(client, {
              source: `
              const sock = new URL("./channel.sock", import.meta.url).pathname;
              const outcome: Record<string, string> = {};
              const attempts: [string, () => unknown][] = [
                ["remove", () => Deno.removeSync(sock)],
                ["chmod", () => Deno.chmodSync(sock, 0o777)],
                ["listen", () => Deno.listen({ transport: "unix", path: sock })],
                ["connect", () => Deno.connect({ transport: "unix", path: sock })],
              ];
              for (const [name, attempt] of attempts) {
                try { await attempt(); outcome[name] = "succeeded"; }
                catch (error) { outcome[name] = (error as Error).name; }
              }
              outcome`,
            });
            assert.equal(document.ok, true, JSON.stringify(document));
            for (
              const [name, outcome] of Object.entries(document.result as Record<string, string>)
            ) {
              assert.notEqual(outcome, "succeeded", `${name} on the channel socket succeeded`);
            }
            // Later runs are untouched, pooled or not.
            const later = await Promise.all(
              [1, 2, 3, 4, 5].map((n) => execRpc(client, { source: `${n} * 2` })),
            );
            assert.deepEqual(later.map((d) => d.result), [2, 4, 6, 8, 10]);
          });

          await t.step("web storage is private to each run", async () => {
            const first = await execRpc(client, {
              source: `localStorage.setItem("k", "from run A");
              await (await caches.open("c")).put("http://x.invalid/", new Response("A"));
              "stored"`,
            });
            assert.equal(first.result, "stored", JSON.stringify(first));
            const second = await execRpc(client, {
              source: `[localStorage.getItem("k"),
              (await (await caches.open("c")).match("http://x.invalid/")) === undefined]`,
            });
            assert.deepEqual(second.result, [null, true], JSON.stringify(second));
          });

          await t.step("attachments are capped in count and bytes, with a notice", async () => {
            const document = await execRpc(client, {
              source: `for (let i = 0; i < 40; i++) {
                attach({ data: "A".repeat(1_000_000), mimeType: "image/png" });
              }
              "sent"`,
            });
            assert.equal(document.ok, true);
            assert.equal(document.attachments.length, 16);
            assert.ok(document.warnings.some((w) => /24 attachment\(s\).*dropped/.test(w)));
          });

          await t.step(
            "twenty thousand unhandled rejections keep a bounded warning list",
            async () => {
              const document = await execRpc(client, {
                source: `for (let i = 0; i < 20000; i++) Promise.reject(new Error("r" + i));
              await new Promise((r) => setTimeout(r, 200));
              "done"`,
              });
              assert.equal(document.ok, true);
              assert.ok(document.warnings.length <= 101, `${document.warnings.length} warnings`);
              assert.match(document.warnings.at(-1) ?? "", /more warning\(s\) dropped/);
            },
          );

          await t.step("a 5 MB result is cut like stdout, with a notice", async () => {
            const document = await execRpc(client, { source: `"x".repeat(5_000_000)` });
            assert.equal(document.ok, true);
            assert.equal(document.resultTruncated, true);
            assert.match(
              String(document.result),
              /^\[gateway: result truncated: \d+ of 5000002 bytes/,
            );
            assert.ok(JSON.stringify(document).length < 200_000);
          });

          await t.step(
            "the gateway's token printed by a script is redacted in history",
            async () => {
              const token = (await Deno.readTextFile(join(gw.dataDir, "token"))).trim();
              const document = await cliRun(gw, ["console.log(stdin().text())"], token);
              assert.equal(document.ok, true);
              const stored = await client.request<{ stdout: string }>("history.get", {
                id: document.runId,
              });
              assert.ok(!stored.stdout.includes(token));
              assert.match(stored.stdout, /\[REDACTED\]/);
            },
          );

          await t.step(
            "a secret cut in half by the history cap leaves no first characters",
            async () => {
              const document = await execRpc(client, {
                source: `console.log("x".repeat(1015) + ${JSON.stringify(SECRET)})`,
              });
              const db = new DatabaseSync(join(gw.dataDir, "gateway.db"), { readOnly: true });
              try {
                const row = db.prepare("SELECT stdout FROM runs WHERE id = ?").get(
                  document.runId,
                ) as {
                  stdout: string;
                };
                assert.ok(row.stdout.length <= 1024);
                assert.ok(!row.stdout.includes("sk-t"), JSON.stringify(row.stdout.slice(-20)));
              } finally {
                db.close();
              }
            },
          );
        } finally {
          await client.close();
        }
      });
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
);

Deno.test("the data dir is never granted to a run, however the grant reaches it", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files = await runTestRoot({
    config: { exec: { maxPermissions: { read: true, write: true } } },
  });
  await withRunHarness({ files }, async (gw) => {
    await t.step("naming the data dir is refused before start", async () => {
      const document = await cliRun(gw, [`--allow-read=${gw.dataDir}`, "1"]);
      assert.equal(document.error?.kind, "PermissionRefused");
      assert.match(document.error?.message ?? "", /data dir/);
    });

    await t.step("a symlink to the data dir is resolved and refused", async () => {
      const link = join(gw.cwd, "innocent");
      await Deno.symlink(gw.dataDir, link);
      const document = await cliRun(gw, [`--allow-read=${link}`, "1"]);
      assert.equal(document.error?.kind, "PermissionRefused");
    });

    await t.step("a parent grant runs, but the token stays unreadable", async () => {
      const document = await cliRun(gw, [
        `--allow-read=${dirname(gw.dataDir)}`,
        `Deno.readTextFileSync(${JSON.stringify(join(gw.dataDir, "token"))})`,
      ]);
      assert.equal(document.error?.kind, "PermissionDenied", JSON.stringify(document));
    });

    await t.step("even an unrestricted read grant cannot read the database", async () => {
      const document = await cliRun(gw, [
        "--allow-read",
        `Deno.readFileSync(${JSON.stringify(join(gw.dataDir, "gateway.db"))}).length`,
      ]);
      assert.equal(document.error?.kind, "PermissionDenied", JSON.stringify(document));
    });
  });
});
