/**
 * Remembers the last scripts prepared (parsed, last expression wrapped, usage read from the
 * AST): the same source prepares the same way, so a script run again — a rerun, a named
 * script, an agent's retry — skips the trip to the checker worker (≈ 1–2 ms of a trivial
 * run's ≈ 10, issue 12). Bounded; the least recently used entry goes first.
 * @module
 */

import type { PrepareScriptResult } from "./script_transform.ts";

/** Entries kept by default: small scripts, a few hundred KB at most. */
export const DEFAULT_PREPARE_CACHE_ENTRIES = 64;

/** Sources longer than this are prepared every time (one would push out many small ones). */
const MAX_CACHED_SOURCE_CHARS = 64 * 1024;

/** `prepare` of the script runner, with a bounded memory of its answers. */
export function cachedPrepare(
  prepare: (source: string, inline: boolean) => Promise<PrepareScriptResult>,
  maxEntries = DEFAULT_PREPARE_CACHE_ENTRIES,
): (source: string, inline: boolean) => Promise<PrepareScriptResult> {
  const entries = new Map<string, Promise<PrepareScriptResult>>();
  return (source, inline) => {
    if (source.length > MAX_CACHED_SOURCE_CHARS || maxEntries <= 0) {
      return prepare(source, inline);
    }
    const key = `${inline ? "i" : "f"}${source}`;
    const known = entries.get(key);
    if (known) {
      entries.delete(key);
      entries.set(key, known);
      return known;
    }
    const answer = prepare(source, inline);
    entries.set(key, answer);
    // A failure (the worker crashed or timed out) is not an answer about the script.
    answer.catch(() => {
      if (entries.get(key) === answer) entries.delete(key);
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return answer;
  };
}
