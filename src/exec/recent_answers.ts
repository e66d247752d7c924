/**
 * Remembers the last answers of a pure asynchronous function: preparing a script (parse, wrap
 * the last expression, read its usage) and type-checking it against the tool types in force
 * give the same answer for the same input, so a script run again — a rerun, a named script,
 * an agent's retry — skips the checker worker, a good part of a trivial run's time. Bounded; the least recently used answer goes first, and a failure (the
 * worker crashed or timed out) is not an answer and is not kept.
 * @module
 */

/** Answers kept by default. */
export const DEFAULT_RECENT_ANSWERS = 64;

/**
 * `answer` with a memory of its last `maxEntries` answers, by `keyOf` of the arguments (null:
 * not remembered, e.g. an input too large to keep).
 */
export function rememberRecentAnswers<Args extends unknown[], T>(
  answer: (...args: Args) => Promise<T>,
  keyOf: (...args: Args) => string | null,
  maxEntries = DEFAULT_RECENT_ANSWERS,
): (...args: Args) => Promise<T> {
  const entries = new Map<string, Promise<T>>();
  return (...args) => {
    const key = maxEntries > 0 ? keyOf(...args) : null;
    if (key === null) return answer(...args);
    const known = entries.get(key);
    if (known) {
      entries.delete(key);
      entries.set(key, known);
      return known;
    }
    const answered = answer(...args);
    entries.set(key, answered);
    answered.catch(() => {
      if (entries.get(key) === answered) entries.delete(key);
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return answered;
  };
}
