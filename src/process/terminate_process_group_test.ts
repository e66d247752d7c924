import assert from "node:assert/strict";
import { describeExit } from "./describe_exit.ts";
import { pollUntil } from "../../test/support/poll_until.ts";
import {
  signalProcessGroup,
  terminateProcess,
  terminateProcessGroup,
} from "./terminate_process_group.ts";

/** Whether any process of group `pgid` is alive (not a zombie). */
function groupAlive(pgid: number): boolean {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) return true;
    } catch {
      // exited while scanning
    }
  }
  return false;
}

/** Waits until the child says its SIGTERM trap is set (then releases its stdout). */
async function untilTrapped(child: Deno.ChildProcess): Promise<void> {
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /trapped/);
  reader.releaseLock();
  await child.stdout.cancel();
}

Deno.test({
  name: "terminateProcessGroup() ends a leader that exits on SIGTERM, and its whole group",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // The leader forks a grandchild that ignores SIGTERM; only the final SIGKILL ends it.
    const child = new Deno.Command("sh", {
      args: ["-c", "(trap '' TERM; echo trapped; sleep 60) & sleep 60"],
      stdout: "piped",
      detached: true,
    }).spawn();
    await untilTrapped(child);
    const status = await terminateProcessGroup(child.pid, child.status, { graceMs: 2_000 });
    assert.equal(status.signal, "SIGTERM");
    // The KILL is delivered at once but a process takes a moment to die.
    await pollUntil("the group to be gone", () => !groupAlive(child.pid) || undefined);
  },
});

Deno.test({
  name: "terminateProcessGroup() SIGKILLs a leader that ignores SIGTERM after the grace",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const child = new Deno.Command("sh", {
      args: ["-c", "trap '' TERM; echo trapped; while true; do sleep 0.05; done"],
      stdout: "piped",
      detached: true,
    }).spawn();
    await untilTrapped(child);
    const status = await terminateProcessGroup(child.pid, child.status, { graceMs: 200 });
    assert.equal(status.signal, "SIGKILL");
    assert.equal(describeExit(status), "was killed by SIGKILL");
  },
});

Deno.test({
  name: "terminateProcessGroup() sends no signal to a leader that exits within exitWaitMs",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const child = new Deno.Command("sh", {
      args: ["-c", "read line; exit 3"],
      stdin: "piped",
      detached: true,
    }).spawn();
    await child.stdin.close();
    const status = await terminateProcessGroup(child.pid, child.status, {
      graceMs: 2_000,
      exitWaitMs: 5_000,
    });
    assert.equal(describeExit(status), "exited with code 3");
  },
});

Deno.test("signalProcessGroup() accepts a group that is already gone", async () => {
  const child = new Deno.Command("true", { detached: true }).spawn();
  await child.status;
  signalProcessGroup(child.pid, "SIGKILL");
  await pollUntil("the group to be gone", () => !groupAlive(child.pid) || undefined);
});

Deno.test("terminateProcess() TERMs a process still running, and leaves one that exited in time alone", async () => {
  const running = new Deno.Command("sleep", { args: ["30"], stdin: "null" }).spawn();
  let runningExited = false;
  running.status.then(() => (runningExited = true));
  const ended = await terminateProcess(running, () => runningExited, { graceMs: 2_000 });
  assert.equal(ended.signal, "SIGTERM");

  const quick = new Deno.Command("true", { stdin: "null" }).spawn();
  let quickExited = false;
  quick.status.then(() => (quickExited = true));
  const status = await terminateProcess(quick, () => quickExited, {
    graceMs: 0,
    exitWaitMs: 5_000,
  });
  assert.deepEqual({ ...status }, { success: true, code: 0, signal: null }, "it exited by itself");
});
