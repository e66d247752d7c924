/**
 * How a child process ended, in the words failure reasons use, for every kind of child.
 * @module
 */

/**
 * Says how a child ended, for failure reasons: `exited with code 3` or `was killed by SIGKILL`.
 *
 * @example
 * ```ts
 * import { describeExit } from "./describe_exit.ts";
 * describeExit({ success: false, code: 137, signal: "SIGKILL" }); // "was killed by SIGKILL"
 * ```
 */
export function describeExit(status: Deno.CommandStatus): string {
  return status.signal === null
    ? `exited with code ${status.code}`
    : `was killed by ${status.signal}`;
}
