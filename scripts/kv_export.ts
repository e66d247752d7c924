/**
 * Prints every kv entry under a prefix as JSON lines, for backups or piping into jq.
 *
 * @param prefix only keys that start with this (first argument; default: all)
 * @example gateway run kv_export notes: > notes.jsonl
 */
const prefix = args[0] ?? "";
let after: string | undefined;
for (;;) {
  const page = await tools.kv.list({ prefix, limit: 500, ...(after ? { after } : {}) });
  for (const entry of page) console.log(JSON.stringify(entry));
  if (page.length < 500) break;
  after = page[page.length - 1]!.key;
}
