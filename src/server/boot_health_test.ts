import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRootConfig } from "../config/config_loader.ts";
import { bootHealth, startingNamespaces } from "./boot_health.ts";

async function rootWith(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "boot-health-" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  return dir;
}

Deno.test("startingNamespaces() lists what the root will serve, each starting, clashes left out", async () => {
  const dir = await rootWith({
    "gateway.json": JSON.stringify({
      mcpServers: {
        everything: { command: "node", args: ["x.js"] },
        kv: { command: "node", args: ["kv.js"] },
        off: { command: "node", args: [], disabled: true },
      },
      apis: { "pet-store": { openapi: "pets.yaml" } },
      tools: { hidden: { disabled: true } },
    }),
    "tools/kv.ts": "export function get() {}\n",
    "tools/echo.ts": "export function echo() {}\n",
    "tools/hidden.ts": "export function x() {}\n",
    "tools/echo_test.ts": "",
    "tools/_helper.ts": "",
  });
  try {
    const root = { dir, source: "flag" as const, configFile: join(dir, "gateway.json") };
    const listed = startingNamespaces(dir, await loadRootConfig(root, {}));
    assert.deepEqual(listed.map((ns) => [ns.name, ns.identifier, ns.kind, ns.status]), [
      ["echo", "echo", "local", "starting"],
      ["everything", "everything", "mcp", "starting"],
      ["pet-store", "pet_store", "openapi", "starting"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bootHealth() says only 'up, starting' without the token, refuses a foreign Host, and answers in full on the socket", async () => {
  const dir = await rootWith({ "tools/echo.ts": "export function echo() {}\n" });
  try {
    const root = { dir, source: "flag" as const, configFile: null };
    const options = {
      token: "secret-token",
      trusted: false,
      port: () => 4000,
      version: "0.0.0",
      rootDir: dir,
      loaded: await loadRootConfig(root, {}),
    };
    const url = "http://127.0.0.1:4000/health";
    const anonymous = bootHealth(
      new Request(url, { headers: { host: "127.0.0.1:4000" } }),
      options,
    );
    assert.deepEqual(await anonymous.json(), { ok: true, starting: true });
    const holder = await bootHealth(
      new Request(url, {
        headers: { host: "127.0.0.1:4000", authorization: "Bearer secret-token" },
      }),
      options,
    ).json();
    assert.equal(holder.root, dir);
    assert.equal(holder.starting, true);
    assert.deepEqual(holder.namespaces.map((ns: { status: string }) => ns.status), ["starting"]);
    const foreign = bootHealth(new Request(url, { headers: { host: "evil.example" } }), options);
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    // On the CLI's socket, reaching it is the credential.
    const local = await bootHealth(new Request("http://localhost/health"), {
      ...options,
      trusted: true,
    }).json();
    assert.equal(local.root, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
