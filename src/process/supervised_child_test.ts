import { SupervisedChild } from "./supervised_child.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

const BWRAP = "/usr/bin/bwrap";
const hasBwrap = Deno.build.os === "linux" &&
  await Deno.stat(BWRAP).then(() => true, () => false) &&
  (await new Deno.Command(BWRAP, {
    args: ["--unshare-pid", "--dev-bind", "/", "/", "--", "true"],
    stdout: "null",
    stderr: "null",
  }).output()).success;

/** The pids whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(marker)) found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

Deno.test({
  name: "terminate() ends a bwrap's whole namespace, even a bwrap ended while it sets it up",
  ignore: !hasBwrap,
}, async () => {
  // A sleep no other process runs: its length names this test's processes.
  const marker = `1000.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  const argv = [
    BWRAP,
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-net",
    "--dev-bind",
    "/",
    "/",
    "--",
    "sleep",
    marker,
  ];
  try {
    // Ended at once and at each of the first few milliseconds: bwrap's reaper waits for its
    // parent's go-ahead before it asks to die with it, and a signal to bwrap alone in that
    // window left the reaper behind for ever.
    for (let i = 0; i < 24; i++) {
      const child = new SupervisedChild({
        argv,
        confine: () => ({ argv, namespaced: true }),
        ownGroup: false,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      });
      await new Promise((resolve) => setTimeout(resolve, i % 6));
      await child.terminate({ graceMs: 1_000 });
    }
    // Killing a namespace's reaper ends the rest of it as the kernel gets to it: gone soon,
    // where the old way left it running for good.
    await pollUntil(
      "no process of the ended namespaces left",
      () => processesWith(marker).length === 0 || null,
      { timeoutMs: 10_000 },
    );
  } finally {
    for (const pid of processesWith(marker)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
  }
});
