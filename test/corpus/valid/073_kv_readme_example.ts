const todo = await tools.kv.get({ key: "corpus-todo" }) ?? [];
await tools.kv.set({ key: "corpus-todo", value: [...(todo as string[]), "ship it"] });
(await tools.kv.get({ key: "corpus-todo" }) as string[]).length
