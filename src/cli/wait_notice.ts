/**
 * The one stderr line a run's wait gets on a terminal (`run.waiting`): "starting the type
 * checker…" while the first typed run after a start waits for it, cleared once it is over, so
 * a slow first run is never silent and a terminal is left as it was. Nothing is shown when
 * stderr is not a terminal (the request then does not ask for the notifications).
 * @module
 */

import type { ServerNotification } from "../client/gateway_http_client.ts";
import { describeRunWait, type RunWaiting } from "../protocol/run_waiting.ts";
import type { CliOutput } from "./cli_context.ts";

/** Erases the line the cursor is on (the wait line) and returns to its start. */
const CLEAR_LINE = "\r\x1b[2K";

/** Whether this invocation shows wait lines: stderr is a terminal. */
export function showsWaits(output: CliOutput): boolean {
  return output.errIsTty === true;
}

/**
 * Shows each `run.waiting` of the client's runs on stderr while it lasts; returns the function
 * that stops listening (and clears a line still shown, when the answer came first).
 */
export function printWaitNotices(
  client: { onNotification(listener: (n: ServerNotification) => void): () => void },
  output: CliOutput,
): () => void {
  let shown = false;
  const clear = () => {
    if (!shown) return;
    output.err(CLEAR_LINE);
    shown = false;
  };
  const unsubscribe = client.onNotification((n) => {
    if (n.method !== "run.waiting") return;
    const waiting = n.params as RunWaiting;
    if (waiting.phase === "done") clear();
    else if (!shown) {
      output.err(describeRunWait(waiting.on));
      shown = true;
    }
  });
  return () => {
    unsubscribe();
    clear();
  };
}
