await tools.kv.set({ key: "corpus-br", value: 1 });
await tools.kv["delete"]({ key: "corpus-br" })
