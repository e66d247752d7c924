await tools.graph.create_entities({ entities: [{ name: "corpus-graph-1", entityType: "thing", observations: ["round"] }] });
const g = await tools.graph.read_graph() as { entities: Array<{ name: string }> };
g.entities.some((e) => e.name === "corpus-graph-1")
