/**
 * The end marker a runner writes on its stdout and stderr as its process exits:
 * `END_MARKER_PREFIX + nonce + ":" + exitCode + "\n"`. The nonce is new for every runner and
 * reaches it on stdin only, so a script cannot forge it; with both markers read and the
 * channel closed the gateway holds all the run wrote, and answers without waiting for the
 * process to be torn down. Shared by the runner and the gateway.
 * @module
 */

/** The marker's fixed start; a NUL first, which text output does not hold. */
export const END_MARKER_PREFIX = "\u0000gateway-run-end:";
