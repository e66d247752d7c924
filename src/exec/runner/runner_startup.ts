/**
 * The runner's first steps, before its run comes: the secrets the gateway writes on stdin, and
 * warming runtime code every run would otherwise compile on its path. Kept apart from
 * `runner_main.ts`, which owns the channel and the run.
 * @module
 */

import { concatBytes } from "../../protocol/bytes.ts";

/**
 * Reads the two lines the gateway writes on stdin before closing it: the run token, then the
 * nonce of the run's end marker. Synchronously: the runner has nothing to do before it has
 * them, and the gateway writes them as it spawns the process, so they are there by the time
 * Deno has started. An async read of stdin is handed to a thread of the runtime's blocking
 * pool and back: it cost each runner CPU and more memory touched.
 */
export function readSecrets(): { token: string; endNonce: string } {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(256);
  for (;;) {
    const n = Deno.stdin.readSync(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
    if (chunks.reduce((lines, c) => lines + c.filter((b) => b === 10).length, 0) >= 2) break;
  }
  const [token = "", endNonce = ""] = new TextDecoder().decode(concatBytes(chunks)).split("\n");
  return { token: token.trim(), endNonce: endNonce.trim() };
}

/**
 * Compiles the runtime's event dispatch while the runner waits for its run. Deno compiles it
 * lazily, when it dispatches `load` after the script, on every run's path.
 * The listener is needed: with none, dispatch returns before reaching that code.
 */
export function warmEventDispatch(): void {
  const noop = () => {};
  globalThis.addEventListener("gateway-warm", noop);
  globalThis.dispatchEvent(new Event("gateway-warm"));
  globalThis.removeEventListener("gateway-warm", noop);
}
