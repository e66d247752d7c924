await tools.graph.create_entities({ entities: [{ name: "corpus-g-a", entityType: "t", observations: [] }, { name: "corpus-g-b", entityType: "t", observations: [] }] });
const { relations } = await tools.graph.create_relations({ relations: [{ from: "corpus-g-a", to: "corpus-g-b", relationType: "links" }] });
relations.length
