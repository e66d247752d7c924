import assert from "node:assert/strict";
import { join } from "node:path";
import { fastStart, parseSimpleStart } from "./fast_start.ts";
import type { CliOutput } from "./cli_context.ts";
import { pidAlive, readServerState } from "../config/server_state.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

function captured(): CliOutput & { text: string[] } {
  const text: string[] = [];
  return { isTty: false, out: (s: string) => text.push(s), err: (s: string) => text.push(s), text };
}

Deno.test("parseSimpleStart() takes `start` with at most --root; everything else is the full CLI's", () => {
  assert.equal(parseSimpleStart(["start"]), "");
  assert.equal(parseSimpleStart(["--root", "r", "start"]), "r");
  assert.equal(parseSimpleStart(["--root=q", "start"]), "q");
  for (
    const argv of [
      ["start", "--help"],
      ["start", "x"],
      ["stop"],
      ["--root", "start"],
      ["--root=", "start"],
      ["workflow", "start", "f.yaml"],
      [],
    ]
  ) assert.equal(parseSimpleStart(argv), null, argv.join(" "));
});

Deno.test("fastStart() starts the root's server and prints what the full CLI prints; with a server.json it leaves the verb to the full CLI", async () => {
  const root = await Deno.makeTempDir({ prefix: "fast-start-root-" });
  const dataDir = await Deno.makeTempDir({ prefix: "fast-start-data-" });
  await Deno.writeTextFile(join(root, "gateway.json"), '{ "port": 0 }\n');
  const env = { GATEWAY_DATA_DIR: dataDir, HOME: Deno.env.get("HOME") };
  let pid: number | null = null;
  try {
    const output = captured();
    const code = await fastStart({ argv: ["--root", root, "start"], env, cwd: root, output });
    assert.equal(code, 0);
    const found = await readServerState(dataDir);
    assert.ok(found && !found.stale);
    pid = found.state.pid;
    assert.deepEqual(output.text, [
      `started: pid ${pid}, port ${found.state.port}, root ${found.state.root}\n`,
    ]);
    assert.equal(await Deno.realPath(found.state.root), await Deno.realPath(root));
    // Its parts are up: the plain /health says so.
    const health = await (await fetch(`http://127.0.0.1:${found.state.port}/health`)).json();
    assert.deepEqual(health, { ok: true });

    const again = captured();
    assert.equal(await fastStart({ argv: ["start"], env, cwd: root, output: again }), null);
    assert.deepEqual(again.text, []);
  } finally {
    if (pid !== null) {
      Deno.kill(pid, "SIGTERM");
      const stopped = pid;
      await pollUntil("the started server to exit", () => !pidAlive(stopped));
    }
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("fastStart() reports a bad config as the full CLI does (exit 2, error[Config])", async () => {
  const root = await Deno.makeTempDir({ prefix: "fast-start-root-" });
  const dataDir = await Deno.makeTempDir({ prefix: "fast-start-data-" });
  await Deno.writeTextFile(join(root, "gateway.json"), '{ "port": "nine" }\n');
  try {
    const output = captured();
    const code = await fastStart({
      argv: ["--root", root, "start"],
      env: { GATEWAY_DATA_DIR: dataDir, HOME: Deno.env.get("HOME") },
      cwd: root,
      output,
    });
    assert.equal(code, 2);
    assert.match(
      output.text.join(""),
      /^error\[Config\]: Invalid config ".*gateway\.json": "port"/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});
