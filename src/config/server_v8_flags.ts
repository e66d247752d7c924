/**
 * V8 flags for the gateway server process, wherever it is started (autostart, a service unit).
 * V8 grows the young generation to 16 MB per semi-space during start-up and keeps it; the
 * server's allocations are small and short-lived, so a 4 MB cap keeps several megabytes off its
 * idle resident memory without costing CPU per call (a 2 MB cap saved a little more memory
 * but cost CPU on every call).
 * @module
 */

/** The `deno run` flag carrying the server's V8 settings. */
export const SERVER_V8_FLAGS = "--v8-flags=--max-semi-space-size=4";
