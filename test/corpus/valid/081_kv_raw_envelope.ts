await tools.kv.set({ key: "corpus-raw", value: 5 });
const envelope = await tools.kv.get.raw({ key: "corpus-raw" });
envelope.content.length > 0
