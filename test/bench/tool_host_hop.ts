/**
 * One hop of a local tool call alone: the gateway's side (`ToolHost` over the shared host's
 * Worker socket, or an isolated host's) calling a tool that returns its argument, in this
 * process, without a script or its channel — to set against the unix-socket floor.
 * @module
 */

import { fileURLToPath } from "node:url";
import { SharedToolHosts } from "../../src/namespaces/local/shared_tool_host.ts";
import { ToolHost } from "../../src/namespaces/local/tool_host.ts";
import { captureLogger } from "../support/capture_logger.ts";

const ECHO = fileURLToPath(new URL("../fixtures/tool_modules/faulty_tools.ts", import.meta.url));

/** Median ms of `count` sequential calls through a tool host: shared (a Worker) or isolated. */
export async function toolHostHopMs(count: number, options: { isolate: boolean }): Promise<number> {
  const logger = captureLogger();
  const shared = new SharedToolHosts({ logger });
  const host = new ToolHost({
    name: "echo",
    file: ECHO,
    dataDir: "/tmp/gateway-bench-data",
    logger,
    shared,
    isolate: options.isolate,
  });
  try {
    await host.start();
    const times: number[] = [];
    for (let i = 0; i < count + 100; i++) {
      const t = performance.now();
      await host.call("echo", { value: i }, { timeoutMs: 10_000 });
      if (i >= 100) times.push(performance.now() - t); // the first 100 warm up
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] ?? NaN;
  } finally {
    await host.stop();
    await shared.stop();
  }
}
