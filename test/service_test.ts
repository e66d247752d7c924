/**
 * End-to-end: `gateway service install --print` shows the systemd user unit that would run
 * `gateway server` for the root (restarting on failure) without installing anything (SPEC §12).
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { denoCacheDir } from "./support/bounded_cli.ts";

Deno.test({
  name: "gateway service install --print shows a systemd unit and writes nothing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
      const home = join(gw.cwd, "home");
      const config = join(home, ".config");
      await Deno.mkdir(home, { recursive: true });
      // Another HOME, so nothing real is touched; the same Deno cache, so nothing is fetched.
      const env = { HOME: home, XDG_CONFIG_HOME: config, DENO_DIR: denoCacheDir() };
      const unitFile = join(config, "systemd", "user", "gateway.service");

      const printed = await gw.cli(["service", "install", "--print"], { env });
      assert.equal(printed.code, 0, printed.stderr);
      const [first, ...rest] = printed.stdout.split("\n");
      assert.equal(first, `# ${unitFile}`);
      const unit = rest.join("\n");
      assert.match(unit, /^\[Unit\]$/m);
      assert.match(unit, /^\[Service\]$/m);
      assert.match(unit, /^\[Install\]$/m);
      const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? "";
      assert.ok(execStart.includes(Deno.execPath()), execStart);
      assert.match(execStart, /src\/main\.ts" server --root /);
      assert.ok(execStart.includes(`"${gw.root}"`), execStart);
      assert.ok(execStart.includes(join(gw.dataDir, "server.log")), execStart);
      assert.match(unit, /^Restart=on-failure$/m);
      assert.ok(unit.includes(`GATEWAY_DATA_DIR="${gw.dataDir}"`), unit);
      assert.match(unit, /^WantedBy=default\.target$/m);
      await assert.rejects(Deno.stat(unitFile), Deno.errors.NotFound);

      const status = await gw.cli(["service", "status"], { env });
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, new RegExp(`^not installed: ${unitFile.replace(/[.]/g, "\\.")}`));

      const bad = await gw.cli(["service", "restart"], { env });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /service needs install, uninstall or status \(got "restart"\)/);
    });
  },
});
