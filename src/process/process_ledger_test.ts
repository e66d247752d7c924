import assert from "node:assert/strict";
import { ProcessLedger, processStartTime } from "./process_ledger.ts";

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

Deno.test({
  name: "ProcessLedger.reapStale() ends the groups a dead server recorded, and only those",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const stateDir = await Deno.makeTempDir({ prefix: "gateway-ledger-" });
    const orphan = new Deno.Command("sleep", { args: ["300"], detached: true, stdin: "null" })
      .spawn();
    try {
      // A ledger written by a "server" that is gone (pid 0 is never a live server of ours).
      await Deno.writeTextFile(
        `${stateDir}/children-999999999.log`,
        `${orphan.pid} ${processStartTime(orphan.pid)}\n${orphan.pid + 1} 1\n`,
      );
      // Our own ledger is left alone.
      new ProcessLedger(stateDir).record(orphan.pid);
      assert.equal(ProcessLedger.reapStale(stateDir), 1);
      await orphan.status;
      assert.equal(alive(orphan.pid), false);
      const left = [...Deno.readDirSync(stateDir)].map((e) => e.name);
      assert.deepEqual(left, [`children-${Deno.pid}.log`]);
    } finally {
      try {
        Deno.kill(-orphan.pid, "SIGKILL");
      } catch {
        // reaped
      }
      await Deno.remove(stateDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ProcessLedger.reapStale() ends a recorded child that leads no group of its own",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const stateDir = await Deno.makeTempDir({ prefix: "gateway-ledger-" });
    // As a runner that cannot start processes is spawned: in its parent's group.
    const orphan = new Deno.Command("sleep", { args: ["300"], stdin: "null" }).spawn();
    try {
      await Deno.writeTextFile(
        `${stateDir}/children-999999999.log`,
        `${orphan.pid} ${processStartTime(orphan.pid)}\n`,
      );
      assert.equal(ProcessLedger.reapStale(stateDir), 1);
      assert.equal((await orphan.status).signal, "SIGKILL");
    } finally {
      try {
        orphan.kill("SIGKILL");
      } catch {
        // reaped
      }
      await Deno.remove(stateDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ProcessLedger.reapStale() never signals a pid whose start time changed (reused)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const stateDir = await Deno.makeTempDir({ prefix: "gateway-ledger-" });
    const bystander = new Deno.Command("sleep", { args: ["300"], detached: true, stdin: "null" })
      .spawn();
    try {
      await Deno.writeTextFile(`${stateDir}/children-999999999.log`, `${bystander.pid} 1\n`);
      assert.equal(ProcessLedger.reapStale(stateDir), 0);
      assert.equal(alive(bystander.pid), true);
    } finally {
      Deno.kill(-bystander.pid, "SIGKILL");
      await bystander.status;
      await Deno.remove(stateDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "ProcessLedger compacts its file to the live entries every 256 records",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const stateDir = await Deno.makeTempDir({ prefix: "gateway-ledger-" });
    const live = new Deno.Command("sleep", { args: ["300"], detached: true, stdin: "null" })
      .spawn();
    try {
      const ledger = new ProcessLedger(stateDir);
      ledger.record(live.pid);
      // Pids above the largest Linux allows (PID_MAX_LIMIT, 4,194,304): no process has them.
      for (let i = 0; i < 255; i++) ledger.record(4_194_400 + i);
      const text = await Deno.readTextFile(`${stateDir}/children-${Deno.pid}.log`);
      assert.equal(text, `${live.pid} ${processStartTime(live.pid)}\n`);
    } finally {
      Deno.kill(-live.pid, "SIGKILL");
      await live.status;
      await Deno.remove(stateDir, { recursive: true });
    }
  },
});
