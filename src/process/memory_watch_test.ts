import assert from "node:assert/strict";
import { residentKb } from "./memory_watch.ts";
import { pollUntil } from "../../test/support/poll_until.ts";

Deno.test({
  name: "residentKb() reads what /proc/PID/status calls VmRSS, and null for a process that is gone",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const child = new Deno.Command("sleep", { args: ["30"], stdin: "null" }).spawn();
    const vmRss = () =>
      Number(
        /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${child.pid}/status`))![1],
      );
    try {
      // Read between two equal readings of `status`: the process has settled into its sleep.
      const { kb, rss } = await pollUntil("two equal readings around one of statm", () => {
        const before = vmRss();
        const kb = residentKb(child.pid);
        return vmRss() === before ? { kb, rss: before } : undefined;
      });
      assert.equal(kb, rss);
    } finally {
      child.kill("SIGKILL");
      await child.status;
    }
    assert.equal(residentKb(child.pid), null);
  },
});
