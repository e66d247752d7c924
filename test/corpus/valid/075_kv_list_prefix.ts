await tools.kv.set({ key: "corpus-list/a", value: 1 });
await tools.kv.set({ key: "corpus-list/b", value: 2 });
const entries = await tools.kv.list({ prefix: "corpus-list/" });
entries.map((e) => e.key)
