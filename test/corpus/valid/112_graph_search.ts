await tools.graph.create_entities({ entities: [{ name: "corpus-graph-2", entityType: "thing", observations: ["square"] }] });
const found = await tools.graph.search_nodes({ query: "corpus-graph-2" });
found !== null
