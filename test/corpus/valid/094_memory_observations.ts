await tools.memory.createEntities({ entities: [{ name: "corpus-obs", entityType: "x" }] });
const [added] = await tools.memory.addObservations({ observations: [{ entityName: "corpus-obs", contents: ["a fact"] }] });
added?.addedObservations
