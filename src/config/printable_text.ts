/**
 * Text from outside (a config file someone else wrote, an authorization server's error) made
 * safe to print on a terminal: control characters — escape sequences that move the cursor,
 * rewrite the line or set the window title, carriage returns that overprint — and invisible
 * format characters (bidirectional overrides) are shown as `\u{…}` escapes instead of acting.
 * @module
 */

/** Controls (C0, DEL, C1), format characters (bidirectional overrides, zero widths …), separators. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * `text` with every control and format character written as an escape.
 *
 * @example
 * ```ts
 * import { printable } from "./printable_text.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(printable("ok\u001b[2K\rfine"), "ok\\u{1b}[2K\\u{d}fine");
 * assert.equal(printable("plain text"), "plain text");
 * ```
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/**
 * One word of a command line as a shell would need it: as it is when it holds only characters
 * no shell treats specially, else double-quoted with `"` and `\` escaped — either way printable.
 *
 * @example
 * ```ts
 * import { shellWord } from "./printable_text.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(shellWord("/usr/bin/node"), "/usr/bin/node");
 * assert.equal(shellWord("curl x | sh"), '"curl x | sh"');
 * ```
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `"${printable(word.replace(/["\\$`]/g, (c) => `\\${c}`))}"`;
}
