import assert from "node:assert/strict";
import type { PermissionSet } from "../config/gateway_config.ts";
import { RUNNER_DISCOVERY, RUNNER_MAIN, runnerFlags, runnerMainUrl } from "./runner_flags.ts";
import { spawnRunner } from "./runner_process.ts";
import { RunChannelServer } from "./run_channel_server.ts";
import { mayStartProcesses } from "./runner_spawn.ts";
import { END_MARKER_PREFIX } from "../protocol/run_end_marker.ts";

const paths = {
  scriptPath: "/runs/a/script.ts",
  socketPath: "/state/channel.sock",
  maxMemoryMb: 128,
};

Deno.test("runnerFlags() turns remote and npm imports off without a network grant", () => {
  const flags = runnerFlags({ ...paths, permissions: {}, compileAtLoad: true });
  assert.ok(flags.includes("--no-remote"));
  assert.ok(flags.includes("--no-npm"));
  assert.ok(flags.includes("--allow-net=unix:/state/channel.sock"));
  assert.ok(
    flags.includes(
      `--allow-read=/runs/a/script.ts,/runs/a/script.js,/state/channel.sock,${RUNNER_DISCOVERY}`,
    ),
  );
  // Started ahead of its run, with nothing to import but its script: compiled as it loads.
  assert.ok(flags.includes("--v8-flags=--max-old-space-size=128,--single-threaded,--no-lazy"));
  assert.ok(!flags.some((f) => f.startsWith("--allow-import")));
});

Deno.test("runnerFlags() compiles lazily a run that may import code, or a runner started for its run", () => {
  const v8 = (permissions: PermissionSet, compileAtLoad = true) =>
    runnerFlags({ ...paths, permissions, compileAtLoad }).find((f) => f.startsWith("--v8-flags="));
  assert.equal(v8({}, false), "--v8-flags=--max-old-space-size=128,--single-threaded");
  for (const permissions of [{ net: ["example.com"] }, { net: true }, { read: ["/data"] }]) {
    assert.equal(
      v8(permissions),
      "--v8-flags=--max-old-space-size=128,--single-threaded",
      JSON.stringify(permissions),
    );
  }
  // Grants that load no code leave it eager.
  for (const permissions of [{ write: ["/out"], env: ["HOME"] }, { net: [], read: false }]) {
    assert.match(v8(permissions) ?? "", /,--no-lazy$/, JSON.stringify(permissions));
  }
});

Deno.test("runnerFlags() limits imports to the granted hosts when net is a host list", () => {
  const flags = runnerFlags({ ...paths, permissions: { net: ["127.0.0.1", "api.example.com"] } });
  assert.ok(flags.includes("--allow-import=127.0.0.1,api.example.com"));
  assert.ok(flags.includes("--no-npm"));
  assert.ok(!flags.includes("--no-remote"));
  assert.ok(flags.includes("--allow-net=unix:/state/channel.sock,127.0.0.1,api.example.com"));
});

Deno.test("runnerFlags() leaves imports to Deno's defaults with unrestricted network", () => {
  const flags = runnerFlags({ ...paths, permissions: { net: true } });
  assert.ok(flags.includes("--allow-net"));
  assert.ok(!flags.includes("--no-remote") && !flags.includes("--no-npm"));
  assert.ok(!flags.some((f) => f.startsWith("--allow-import")));
});

Deno.test("runnerFlags() always denies the data dir and names the run's own storage", () => {
  const flags = runnerFlags({
    ...paths,
    permissions: { read: true },
    deniedPaths: ["/home/u/.local/share/gateway"],
    storage: "7",
  });
  assert.ok(flags.includes("--deny-read=/home/u/.local/share/gateway"));
  assert.ok(flags.includes("--deny-write=/home/u/.local/share/gateway"));
  // Storage is keyed by the main module's URL, which carries the name; no --location.
  assert.ok(flags.includes(`file://${RUNNER_MAIN}?storage=7`), flags.join(" "));
  assert.ok(!flags.some((f) => f.startsWith("--location")));
});

Deno.test("runnerMainUrl() is the URL Deno keys the storage by, for any storage name", () => {
  assert.equal(runnerMainUrl("3"), `file://${RUNNER_MAIN}?storage=3`);
  assert.equal(new URL(runnerMainUrl("a b&c")).searchParams.get("storage"), "a b&c");
});

/** The runner's arguments after its entry file: socket path, then the revocations asked for. */
function runnerArgs(flags: string[]): string[] {
  return flags.slice(flags.findIndex((f) => f.startsWith(`file://${RUNNER_MAIN}?`)) + 1);
}

Deno.test("runnerFlags() asks the runner to drop its socket grants unless the caller's grant covers them", () => {
  assert.equal(runnerArgs(runnerFlags({ ...paths, permissions: {} }))[1], "revoke");
  // Revoking would also revoke the caller's covering grant, so it is skipped then.
  assert.equal(
    runnerArgs(runnerFlags({ ...paths, permissions: { write: ["/state"] } }))[1],
    "keep",
  );
  assert.equal(runnerArgs(runnerFlags({ ...paths, permissions: { read: true } }))[1], "keep");
});

Deno.test("runnerFlags() grants the runner its discovery code, to be dropped unless the caller's grant covers it", () => {
  const flags = runnerFlags({ ...paths, permissions: {} });
  assert.ok(flags.some((f) => f.startsWith("--allow-read=") && f.includes(RUNNER_DISCOVERY)));
  assert.ok(runnerArgs(flags).includes("revoke-discovery"));
  const covered = runnerFlags({ ...paths, permissions: { read: true } });
  assert.ok(!runnerArgs(covered).includes("revoke-discovery"));
});

for (
  const { permissions, group } of [
    { permissions: { run: ["sleep"] }, group: true },
    { permissions: {}, group: false },
  ]
) {
  Deno.test(
    `spawnRunner(): a runner ${
      group
        ? "that may start processes leads its own process group"
        : "that cannot start processes is ended alone"
    }, tells when it is connected, and kill() leaves none of it`,
    async () => {
      assert.equal(mayStartProcesses(permissions), group);
      const runsDir = await Deno.makeTempDir({ prefix: "gateway-runner-test-" });
      const denoDir = await Deno.makeTempDir({ prefix: "gateway-runner-deno-" });
      try {
        const runner = await spawnRunner({
          channel: new RunChannelServer(),
          runsDir,
          permissions,
          maxMemoryMb: 128,
          cwd: runsDir,
          env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
          denoDir,
        });
        assert.equal(runner.ready, null, "not connected yet: a run must wait for it");
        const connection = await runner.connection;
        assert.equal(runner.ready, connection, "connected: a run takes it at once");
        assert.ok(runner.endMarker.startsWith(END_MARKER_PREFIX));
        assert.match(runner.endMarker.slice(END_MARKER_PREFIX.length), /^[0-9a-f]{32}:$/);
        if (Deno.build.os === "linux") {
          const stat = Deno.readTextFileSync(`/proc/${runner.child.pid}/stat`);
          const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
          assert.equal(pgid === runner.child.pid, group, "leads its process group");
        }
        connection.close();
        await runner.kill(0);
        assert.equal((await runner.child.status).success, false, "ended by the kill");
        assert.throws(() => Deno.kill(-runner.child.pid, "SIGCONT"), "no group is left (ESRCH)");
        assert.throws(() => Deno.kill(runner.child.pid, "SIGCONT"), "the runner is gone (ESRCH)");
        await runner.child.stdout.cancel();
        await runner.child.stderr.cancel();
      } finally {
        await Deno.remove(runsDir, { recursive: true });
        await Deno.remove(denoDir, { recursive: true });
      }
    },
  );
}
