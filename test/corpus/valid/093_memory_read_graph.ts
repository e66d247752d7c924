const graph = await tools.memory.readGraph();
Array.isArray(graph.entities)
