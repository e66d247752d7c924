/**
 * V8 flags for the gateway server process, wherever it is started (autostart, a service unit).
 * V8 grows the young generation to 16 MB per semi-space under load and never gives it back; the
 * server's allocations are small and short-lived, so a 2 MB cap keeps ≈ 11 MB off its idle
 * resident memory (issue 12) at no measurable cost per call.
 * @module
 */

/** The `deno run` flag carrying the server's V8 settings. */
export const SERVER_V8_FLAGS = "--v8-flags=--max-semi-space-size=2";
