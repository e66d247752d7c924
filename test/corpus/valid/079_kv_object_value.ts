await tools.kv.set({ key: "corpus-obj", value: { name: "x", tags: ["a", "b"] } });
const v = await tools.kv.get({ key: "corpus-obj" }) as { name: string; tags: string[] };
v.tags.length
