const all = await tools.kv.list();
Array.isArray(all)
