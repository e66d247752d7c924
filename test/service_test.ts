/**
 * End-to-end: `gateway service install --print` shows the systemd user unit and the launchd
 * plist that run `gateway server` for the root, named after it, writing nothing. The
 * unit passes `systemd-analyze verify`, and its ExecStart, started as systemd would (an empty
 * environment plus the unit's Environment= and EnvironmentFile=), serves /health with an MCP
 * server whose variable comes from the env file.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { denoCacheDir } from "./support/bounded_cli.ts";
import { EVERYTHING_ENTRY } from "./support/discovery_root.ts";
import { pollUntil } from "./support/poll_until.ts";
import { parseEnvFile } from "../src/config/env_file.ts";

const hasAnalyze = await new Deno.Command("systemd-analyze", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

/** The words of a systemd command line: each is double-quoted with `\"` and `\\` escapes. */
function words(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
}

/** The `[Service]` settings a unit gives, as systemd reads them. */
function serviceOf(unit: string) {
  const values = (key: string) =>
    [...unit.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1]!.replaceAll("%%", "%"));
  const env: Record<string, string> = {};
  for (const value of values("Environment")) {
    const [assignment] = words(value);
    const eq = assignment!.indexOf("=");
    env[assignment!.slice(0, eq)] = assignment!.slice(eq + 1);
  }
  return {
    execStart: words(values("ExecStart")[0] ?? ""),
    workingDirectory: values("WorkingDirectory")[0] ?? "",
    envFile: (values("EnvironmentFile")[0] ?? "").replace(/^-/, ""),
    env,
  };
}

const CONFIG = JSON.stringify({
  mcpServers: {
    everything: {
      command: "node",
      args: [EVERYTHING_ENTRY],
      env: { GREETING: "${env:SERVICE_GREETING}" },
    },
  },
});

Deno.test({
  name:
    "gateway service install --print shows this platform's file (--platform macos the plist), named after the root, and writes nothing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withHarness({ files: { "gateway.json": CONFIG } }, async (gw) => {
      const home = join(gw.cwd, "home");
      const config = join(home, ".config");
      await Deno.mkdir(home, { recursive: true });
      // Another HOME, so nothing real is touched; the same Deno cache, so nothing is fetched.
      const env = { HOME: home, XDG_CONFIG_HOME: config, DENO_DIR: denoCacheDir() };

      const printed = await gw.cli(["service", "install", "--print"], { env });
      assert.equal(printed.code, 0, printed.stderr);
      // Linux's own file only: the launchd plist is asked for with --platform macos.
      assert.doesNotMatch(printed.stdout, /launchd|plist/);
      const systemdPart = printed.stdout;
      const unitFile = /^# systemd user unit: (.*)$/m.exec(systemdPart)?.[1] ?? "";
      assert.match(unitFile, /systemd\/user\/gateway-root-[0-9a-f]{8}\.service$/);
      assert.ok(unitFile.startsWith(join(config, "systemd", "user")), unitFile);
      const unit = systemdPart!.slice(systemdPart!.indexOf("\n") + 1);
      assert.match(unit, /^\[Unit\]$/m);
      assert.match(unit, /^Restart=on-failure$/m);
      assert.match(unit, /^WantedBy=default\.target$/m);
      const service = serviceOf(unit);
      assert.equal(service.execStart[0], Deno.execPath());
      assert.deepEqual(service.execStart.slice(-5), [
        "server",
        "--root",
        gw.root,
        "--log-file",
        join(gw.dataDir, "server.log"),
      ]);
      assert.equal(service.workingDirectory, gw.root);
      assert.equal(service.envFile, join(gw.root, "gateway.env"));
      assert.equal(service.env.GATEWAY_DATA_DIR, gw.dataDir);
      assert.equal(service.env.HOME, home);
      const node = (Deno.env.get("PATH") ?? "").split(":").find((dir) => {
        try {
          return Deno.statSync(join(dir, "node")).isFile;
        } catch {
          return false;
        }
      });
      assert.ok(node && service.env.PATH!.split(":").includes(node), service.env.PATH);

      const mac = await gw.cli(["service", "install", "--print", "--platform", "macos"], { env });
      assert.equal(mac.code, 0, mac.stderr);
      assert.doesNotMatch(mac.stdout, /\[Unit\]/);
      const launchdPart = mac.stdout;
      assert.match(
        launchdPart!,
        /^# launchd agent: .*LaunchAgents\/dev\.gateway\.root-[0-9a-f]{8}\.plist\n<\?xml/,
      );
      assert.match(
        launchdPart!,
        /<key>Label<\/key><string>dev\.gateway\.root-[0-9a-f]{8}<\/string>/,
      );
      assert.ok(launchdPart!.includes(`<string>${gw.root}</string>`));
      assert.match(launchdPart!, /<key>PATH<\/key><string>[^<]+<\/string>/);
      await assert.rejects(Deno.stat(unitFile), Deno.errors.NotFound);

      const status = await gw.cli(["service", "status"], { env });
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.stdout.startsWith(`not installed: ${unitFile}\n`), status.stdout);
      assert.ok(status.stdout.includes(`logs: ${join(gw.dataDir, "server.log")}`), status.stdout);

      const installMac = await gw.cli(["service", "install", "--platform", "macos"], { env });
      assert.equal(installMac.code, 2);
      assert.match(installMac.stderr, /--platform goes with --print/);
      const badPlatform = await gw.cli(["service", "install", "--print", "--platform", "bsd"], {
        env,
      });
      assert.equal(badPlatform.code, 2);
      assert.match(badPlatform.stderr, /--platform takes linux or macos, not "bsd"/);

      const bad = await gw.cli(["service", "restart"], { env });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /service needs install, uninstall or status \(got "restart"\)/);
    });
  },
});

Deno.test({
  name:
    "the printed unit passes systemd-analyze verify, and its ExecStart with only the unit's environment serves /health",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withHarness({ files: { "gateway.json": CONFIG } }, async (gw) => {
      const envFile = join(gw.root, "gateway.env");
      await Deno.writeTextFile(
        envFile,
        "# read by the unit and the server\nSERVICE_GREETING=hi\n",
        {
          mode: 0o600,
        },
      );
      const printed = await gw.cli(["service", "install", "--print"], {
        env: { DENO_DIR: denoCacheDir() },
      });
      assert.equal(printed.code, 0, printed.stderr);
      const systemdPart = printed.stdout;
      const unitName = /(gateway-root-[0-9a-f]{8}\.service)$/m.exec(systemdPart)?.[1];
      assert.ok(unitName, systemdPart);
      const unit = systemdPart.slice(systemdPart.indexOf("\n") + 1);

      if (hasAnalyze) {
        const file = join(gw.cwd, unitName);
        await Deno.writeTextFile(file, unit);
        const verify = await new Deno.Command("systemd-analyze", {
          args: ["verify", file],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const said = new TextDecoder().decode(verify.stderr) +
          new TextDecoder().decode(verify.stdout);
        assert.equal(verify.code, 0, said);
        assert.doesNotMatch(said, new RegExp(unitName.replace(/\./g, "\\.")), said);
      } else {
        console.warn("systemd-analyze is not installed: the unit's syntax is not verified here");
      }

      // As systemd starts it: nothing from this test's environment, only the unit's.
      const service = serviceOf(unit);
      const child = new Deno.Command(service.execStart[0]!, {
        args: service.execStart.slice(1),
        cwd: service.workingDirectory,
        clearEnv: true,
        env: { ...service.env, ...parseEnvFile(await Deno.readTextFile(service.envFile), envFile) },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      try {
        const { port, token } = await pollUntil("the service's server.json", async () => {
          try {
            const state = JSON.parse(await Deno.readTextFile(join(gw.dataDir, "server.json")));
            const token = (await Deno.readTextFile(join(gw.dataDir, "token"))).trim();
            return { port: state.port as number, token };
          } catch {
            return undefined;
          }
        }, { timeoutMs: 30_000 });
        const health = await pollUntil("everything ready in /health", async () => {
          const body = await (await fetch(`http://127.0.0.1:${port}/health`, {
            headers: { authorization: `Bearer ${token}` },
          })).json() as { namespaces: { name: string; status: string }[] };
          return body.namespaces.some((n) => n.name === "everything" && n.status === "ready")
            ? body
            : undefined;
        }, { timeoutMs: 30_000 });
        assert.ok(health.namespaces.length >= 1);
        const anonymous = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
        assert.deepEqual(anonymous, { ok: true }, "without the token /health only says it is up");
      } catch (error) {
        throw new Error(`${String(error)}; the service said: ${await stderr}`);
      } finally {
        try {
          child.kill("SIGTERM");
        } catch {
          // it ended already: the assertions above say why
        }
        await child.status;
        await stderr;
      }
    });
  },
});
