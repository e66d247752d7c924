await tools.kv.set({ key: "corpus-del", value: true });
(await tools.kv.delete_({ key: "corpus-del" })).deleted
