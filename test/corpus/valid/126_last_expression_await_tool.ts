await tools.kv.set({ key: "corpus-last", value: "v" });
await tools.kv.get({ key: "corpus-last" })
