/**
 * Reading a live child's output until it says something, for end-to-end tests that act on what
 * the CLI prints while it still runs (a URL to open, an approve command).
 * @module
 */

/** Reads `reader` until `pattern` matches the text so far (kept in `seen`); returns the match. */
export async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  pattern: RegExp,
  seen: { text: string },
): Promise<RegExpExecArray> {
  for (;;) {
    const match = pattern.exec(seen.text);
    if (match) return match;
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${seen.text}`);
    seen.text += value;
  }
}
