await tools.memory.createEntities({ entities: [{ name: "corpus-ada", entityType: "person", observations: ["writes code"] }] });
const found = await tools.memory.searchNodes({ query: "corpus-ada" });
found.entities.map((e) => e.name)
