/**
 * Remembers a note in the kv store under a topic and prints every note kept for it.
 *
 * @param topic what the note is about (first argument)
 * @param note the text to keep (the remaining arguments)
 * @example gateway run remember groceries "oat milk"
 */
const [topic, ...words] = args;
if (!topic || words.length === 0) {
  console.error('usage: gateway run remember TOPIC "note text"');
  Deno.exit(2);
}
const key = `notes:${topic}`;
const notes = (await tools.kv.get({ key }) as string[] | null) ?? [];
notes.push(words.join(" "));
await tools.kv.set({ key, value: notes });
for (const [i, note] of notes.entries()) console.log(`${i + 1}. ${note}`);
