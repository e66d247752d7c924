await tools.kv.set({ key: "corpus-hello", value: "world" });
await tools.kv.get({ key: "corpus-hello" })
