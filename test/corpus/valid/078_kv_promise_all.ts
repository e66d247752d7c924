await Promise.all(["x", "y", "z"].map((k, i) => tools.kv.set({ key: `corpus-pa-${k}`, value: i })));
const values = await Promise.all(["x", "y", "z"].map((k) => tools.kv.get({ key: `corpus-pa-${k}` })));
values
