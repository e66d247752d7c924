import assert from "node:assert/strict";
import { MAIN, withHarness } from "./support/gateway_harness.ts";

Deno.test("gateway exec --no-stdin does not wait on a stdin pipe its caller never closes", async () => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    await gw.server();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--no-prompt",
        "--quiet",
        MAIN,
        "--root",
        gw.root,
        "exec",
        "--no-stdin",
        "'done'",
      ],
      cwd: gw.cwd,
      clearEnv: true,
      env: {
        GATEWAY_DATA_DIR: gw.dataDir,
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? "",
      },
      stdin: "piped", // left open, never written
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Hold the writer: the pipe stays open and empty for the whole run.
    const writer = child.stdin.getWriter();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    try {
      const [stdout, stderr, status] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.status,
      ]);
      assert.equal(status.signal, null, "the CLI hung on stdin and was killed");
      assert.equal(status.code, 0, stderr);
      assert.equal(stdout, "done\n");
    } finally {
      clearTimeout(timer);
      await writer.close().catch(() => undefined);
    }
  });
});
