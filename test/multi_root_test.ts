/**
 * End-to-end: two projects on one machine, no GATEWAY_DATA_DIR. Each root gets its own server
 * and data dir under the user's data dir; `gateway` and `gateway mcp` work in both at once;
 * `status --all` lists both and `stop --all` stops both.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { MAIN, runCli } from "./support/gateway_harness.ts";

const tool = (word: string) =>
  `/** Says who answers. */
export function who(): string {
  return "${word}";
}
`;

async function serverPids(userData: string): Promise<number[]> {
  const pids: number[] = [];
  try {
    for await (const entry of Deno.readDir(join(userData, "gateway", "roots"))) {
      try {
        const text = await Deno.readTextFile(
          join(userData, "gateway", "roots", entry.name, "server.json"),
        );
        pids.push((JSON.parse(text) as { pid: number }).pid);
      } catch {
        // no server for this root
      }
    }
  } catch {
    // no roots yet
  }
  return pids;
}

Deno.test("two projects run their own gateway at once; status --all and stop --all cover both", async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-roots-" });
  const userData = join(base, "data");
  const shop = join(base, "shop");
  const blog = join(base, "blog");
  for (const [project, word] of [[shop, "shop"], [blog, "blog"]] as const) {
    await Deno.mkdir(join(project, ".gateway", "tools"), { recursive: true });
    await Deno.writeTextFile(join(project, ".gateway", "tools", `${word}.ts`), tool(word));
  }
  await Deno.mkdir(join(shop, "src"), { recursive: true });
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? join(base, "home"),
    XDG_DATA_HOME: userData,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
  };
  try {
    const [inShop, inBlog] = await Promise.all([
      runCli(["exec", "await tools.shop.who()"], { env, cwd: join(shop, "src") }),
      runCli(["exec", "await tools.blog.who()"], { env, cwd: blog }),
    ]);
    assert.equal(inShop.code, 0, inShop.stderr);
    assert.equal(inShop.stdout.trim(), "shop");
    assert.equal(inBlog.code, 0, inBlog.stderr);
    assert.equal(inBlog.stdout.trim(), "blog");

    // What an MCP host starts in the second project: it reaches that project's gateway.
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "--allow-all", "--no-prompt", "--quiet", MAIN, "mcp"],
        cwd: blog,
        env,
        stderr: "pipe",
      }),
    );
    try {
      const result = await client.callTool({
        name: "exec",
        arguments: { source: "await tools.blog.who()" },
      });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal((result.structuredContent as { result: unknown }).result, "blog");
    } finally {
      await client.close();
    }

    const status = await runCli(["status", "--all"], { env, cwd: base });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`${join(shop, ".gateway")}: pid \\d+, port \\d+`));
    assert.match(status.stdout, new RegExp(`${join(blog, ".gateway")}: pid \\d+, port \\d+`));
    const dirs = [...Deno.readDirSync(join(userData, "gateway", "roots"))].map((e) => e.name)
      .sort();
    assert.equal(dirs.length, 2);
    assert.match(dirs[0]!, /^blog-[0-9a-f]{8}$/);
    assert.match(dirs[1]!, /^shop-[0-9a-f]{8}$/);

    const one = await runCli(["status"], { env, cwd: shop });
    assert.equal(one.code, 0);
    assert.match(one.stdout, /shop: ready, 1 tool\b/);

    const stopped = await runCli(["stop", "--all"], { env, cwd: base });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout.match(/stopped gateway server/g)?.length, 2, stopped.stdout);
    const after = await runCli(["status", "--all"], { env, cwd: base });
    assert.equal(after.code, 3);
    assert.equal(after.stdout, "no gateway server is running\n");
  } finally {
    for (const pid of await serverPids(userData)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // stopped already
      }
    }
    await Deno.remove(base, { recursive: true }).catch(() => undefined);
  }
});
