await tools.memory.createEntities({ entities: [{ name: "corpus-a", entityType: "x" }, { name: "corpus-b", entityType: "x" }] });
await tools.memory.createRelations({ relations: [{ from: "corpus-a", to: "corpus-b", relationType: "knows" }] });
(await tools.memory.openNodes({ names: ["corpus-a", "corpus-b"] })).relations.length
