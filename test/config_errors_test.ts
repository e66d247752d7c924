/**
 * End-to-end: a bad `gateway.json` is refused at start-up with a message naming the file, the
 * key and the line (exit 2), and a bad edit while the server runs keeps the last good config.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { RpcError } from "../src/protocol/json_rpc.ts";

const FAKE_SERVER = join(REPO, "test", "fixtures", "mcp", "fault_server.ts");

const ECHO_TOOL = `/** Test tools. @module */
/** Echoes its argument. */
export function echo(args: { value: string }): string {
  return args.value;
}
/** The module's settings, read at call time. */
export function settings(): unknown {
  return JSON.parse(Deno.env.get("GATEWAY_TOOL_SETTINGS") ?? "null");
}
`;

Deno.test("gateway server refuses a bad gateway.json with exit 2, naming file, key and line", async (t) => {
  await withHarness({ files: { "gateway.json": "{}" } }, async (gw) => {
    const file = join(gw.root, "gateway.json");
    const serveWith = async (text: string) => {
      await Deno.writeTextFile(file, text);
      return await gw.cli(["server"]);
    };

    await t.step("malformed JSON names the file and the line", async () => {
      const result = await serveWith('{\n  "port": 0,\n  "host": "127.0.0.1"\n  "exec": {}\n}\n');
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^error\[Config\]: Invalid JSON in ".*gateway\.json" at line 4/);
    });

    await t.step("an unknown nested key names the file, the key path and its line", async () => {
      const result = await serveWith(
        '{\n  "port": 0,\n  "exec": {\n    "timeoutMS": 5\n  }\n}\n',
      );
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.includes(file), result.stderr);
      assert.match(result.stderr, /unknown key "exec\.timeoutMS" \(line 4\)/);
    });

    await t.step("an unknown top-level key is refused too", async () => {
      const result = await serveWith('{\n  "port": 0,\n  "mcpServer": {}\n}\n');
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /unknown key "mcpServer" \(line 3\)/);
    });

    await t.step("a value of the wrong type names the key and its line", async () => {
      const result = await serveWith('{\n  "port": "9420"\n}\n');
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.includes(file), result.stderr);
      assert.match(result.stderr, /"port" \(line 2\): .*number/i);
    });

    await t.step("a bad type deep in mcpServers names the whole path", async () => {
      const result = await serveWith(
        '{\n  "port": 0,\n  "mcpServers": { "x": { "command": "x", "args": "not-a-list" } }\n}\n',
      );
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /mcpServers\.x/);
    });

    await t.step(
      "a command that autostarts a server reports the config error promptly",
      async () => {
        await Deno.writeTextFile(
          file,
          '{\n  "port": 0,\n  "exec": {\n    "timeoutMS": 5\n  }\n}\n',
        );
        const result = await gw.cli(["exec", "1 + 1"]);
        assert.equal(result.code, 2, result.stderr);
        assert.match(
          result.stderr,
          /^error\[Config\]: Invalid config ".*gateway\.json".*unknown key "exec\.timeoutMS"/,
        );
      },
    );
  });
});

Deno.test("a running server applies good gateway.json edits (policy, mcpServers) and keeps the last good config on a bad one", async () => {
  await withHarness({
    files: { "gateway.json": '{ "port": 0 }\n', "tools/echo.ts": ECHO_TOOL },
  }, async (gw) => {
    const file = join(gw.root, "gateway.json");
    const client = await gw.client();
    try {
      const callEcho = () =>
        client.request<{ value: unknown }>("call", {
          namespace: "echo",
          tool: "echo",
          args: { value: "hi" },
        });
      const denied = async (): Promise<boolean> => {
        try {
          await callEcho();
          return false;
        } catch (error) {
          if (error instanceof RpcError && error.data?.kind === "PolicyDenied") return true;
          throw error;
        }
      };
      await pollUntil("the echo namespace to answer", async () => (await callEcho()).value);

      // A good edit: a policy rule denying echo.echo takes effect without a restart.
      await Deno.writeTextFile(
        file,
        '{ "port": 0, "policy": [{ "match": "echo.echo", "action": "deny" }] }\n',
      );
      await pollUntil("the policy edit to apply", async () => (await denied()) || undefined);

      // A bad edit: logged with the reason, and the last good config (the policy) stays.
      await Deno.writeTextFile(file, '{ "port": 0, "polcy": [] }\n');
      const log = join(gw.dataDir, "server.log");
      const line = await pollUntil("the reload failure in server.log", async () => {
        const text = await Deno.readTextFile(log);
        return text.split("\n").find((l) => l.includes("config reload failed"));
      });
      assert.match(line, /unknown key \\"polcy\\"/);
      assert.equal(await denied(), true);

      // Fixing the file applies the fixed config: the rule is gone.
      await Deno.writeTextFile(file, '{ "port": 0 }\n');
      await pollUntil("the fixed config to apply", async () => (await denied()) ? undefined : true);
      assert.deepEqual(await callEcho(), { value: "hi" });

      // A new mcpServers entry (a fake MCP server we control) becomes a namespace; removing the
      // entry removes it, and the local module is not disturbed either way.
      const fake = {
        command: Deno.execPath(),
        args: ["run", "--allow-all", "--quiet", "--config", join(REPO, "deno.json"), FAKE_SERVER],
      };
      await Deno.writeTextFile(file, JSON.stringify({ port: 0, mcpServers: { fake } }));
      const namespaces = async () =>
        (await client.request<{ namespaces: Array<{ name: string; status: string }> }>(
          "namespaces",
          {},
        )).namespaces;
      await pollUntil(
        "the fake MCP server to be ready",
        async () => (await namespaces()).find((n) => n.name === "fake" && n.status === "ready"),
      );
      const echoed = await client.request<{ value: unknown }>("call", {
        namespace: "fake",
        tool: "echo",
        args: { message: "over mcp" },
      });
      assert.match(JSON.stringify(echoed.value), /Echo: over mcp/);
      await Deno.writeTextFile(file, '{ "port": 0 }\n');
      await pollUntil(
        "the fake MCP server to be removed",
        async () => (await namespaces()).some((n) => n.name === "fake") ? undefined : true,
      );
      assert.deepEqual(await callEcho(), { value: "hi" });
    } finally {
      await client.close();
    }
  });
});

Deno.test({
  name: "a running server hands a tool module its new settings after a gateway.json edit",
  fn: async () => {
    await withHarness({
      files: { "gateway.json": '{ "port": 0 }\n', "tools/echo.ts": ECHO_TOOL },
    }, async (gw) => {
      const client = await gw.client();
      try {
        const settings = () =>
          client.request<{ value: unknown }>("call", { namespace: "echo", tool: "settings" });
        await pollUntil("the echo namespace to answer", async () => (await settings()).value);
        await Deno.writeTextFile(
          join(gw.root, "gateway.json"),
          '{ "port": 0, "tools": { "echo": { "settings": { "greeting": "hej" } } } }\n',
        );
        await pollUntil("the new settings to reach the module", async () => {
          const { value } = await settings();
          return JSON.stringify(value) === '{"greeting":"hej"}' ? true : undefined;
        }, { timeoutMs: 10_000 });
      } finally {
        await client.close();
      }
    });
  },
});
