const keys = Array.from({ length: 6 }, (_, i) => `corpus-chunk-${i}`);
for (let i = 0; i < keys.length; i += 3) {
  await Promise.all(keys.slice(i, i + 3).map((key) => tools.kv.set({ key, value: i })));
}
(await tools.kv.list({ prefix: "corpus-chunk-" })).length
