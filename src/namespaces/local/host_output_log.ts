/**
 * What a tool host process writes on stdout and stderr, logged as untrusted text: every module
 * in the process can write there, so nothing read from these streams is taken as a message;
 * lines are logged with control characters escaped and at most so many per window, the rest
 * counted, so a module cannot flood or forge the gateway's log.
 * @module
 */

import type { LogMethods } from "../../logger.ts";

/** Lines logged per window before the rest of the window is only counted. */
const LINES_PER_WINDOW = 200;
const WINDOW_MS = 10_000;
/** Lines kept to explain a host that died while importing. */
const TAIL_LINES = 20;
/** Characters of one line logged; the rest is cut with a count. */
const MAX_LOGGED_LENGTH = 2_000;

/** One host's output streams on the gateway's log. */
export class HostOutputLog {
  readonly #label: string;
  readonly #logger: LogMethods;
  readonly #tail: string[] = [];
  #window = { start: 0, logged: 0, suppressed: 0 };

  /** `label` names the host in each line (`[tools/kv.ts]`, `[shared tool host stdout]`). */
  constructor(label: string, logger: LogMethods) {
    this.#label = label;
    this.#logger = logger;
  }

  /** The last lines seen, newest last (for a failed import's hint). */
  get tail(): readonly string[] {
    return this.#tail;
  }

  /** Logs one line the host wrote (escaped, rate-limited). */
  line(text: string): void {
    const line = printable(text);
    this.#tail.push(line);
    if (this.#tail.length > TAIL_LINES) this.#tail.shift();
    const now = Date.now();
    if (now - this.#window.start > WINDOW_MS) {
      if (this.#window.suppressed > 0) {
        this.#logger.warn(
          `[${this.#label}] ${this.#window.suppressed} lines not logged (too many)`,
        );
      }
      this.#window = { start: now, logged: 0, suppressed: 0 };
    }
    if (this.#window.logged >= LINES_PER_WINDOW) {
      this.#window.suppressed++;
      return;
    }
    this.#window.logged++;
    this.#logger.info(`[${this.#label}] ${line}`);
  }
}

// deno-lint-ignore no-control-regex
const COLOUR = /\u001b\[[0-9;]*m/g;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * `text` with ANSI colour codes removed, other control characters escaped (`\u001b`, `\r`…),
 * and cut to a length a log line can hold.
 */
export function printable(text: string): string {
  const plain = text.replace(COLOUR, "").replace(
    CONTROL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return plain.length <= MAX_LOGGED_LENGTH
    ? plain
    : `${plain.slice(0, MAX_LOGGED_LENGTH)}… [${plain.length - MAX_LOGGED_LENGTH} more characters]`;
}
