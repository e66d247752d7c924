import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import * as memory from "./memory.ts";
import { isolatedTests } from "./_isolated_tests.ts";

const test = isolatedTests(import.meta, "memory");

/** Runs `body` with GATEWAY_DATA_DIR set to a fresh temp dir; restores the variable after. */
async function withDataDir(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-memory-test-" });
  const previous = Deno.env.get("GATEWAY_DATA_DIR");
  Deno.env.set("GATEWAY_DATA_DIR", dir);
  try {
    await body(dir);
  } finally {
    if (previous === undefined) Deno.env.delete("GATEWAY_DATA_DIR");
    else Deno.env.set("GATEWAY_DATA_DIR", previous);
    await Deno.remove(dir, { recursive: true });
  }
}

/** A small graph: Ada works at Analytical, Ada knows Babbage, Babbage founded Analytical. */
function seed(): void {
  memory.createEntities({
    entities: [
      { name: "Ada", entityType: "person", observations: ["Wrote the first program"] },
      { name: "Babbage", entityType: "person", observations: ["Designed engines"] },
      { name: "Analytical", entityType: "project", observations: [] },
    ],
  });
  memory.createRelations({
    relations: [
      { from: "Ada", to: "Analytical", relationType: "works_on" },
      { from: "Ada", to: "Babbage", relationType: "knows" },
      { from: "Babbage", to: "Analytical", relationType: "founded" },
    ],
  });
}

test("memory module exports only tools: functions of at most one parameter", () => {
  const exported = Object.entries(memory);
  assert.deepEqual(exported.map(([name]) => name).sort(), [
    "addObservations",
    "createEntities",
    "createRelations",
    "deleteEntities",
    "deleteObservations",
    "deleteRelations",
    "openNodes",
    "readGraph",
    "searchNodes",
  ]);
  for (const [name, value] of exported) {
    assert.equal(typeof value, "function", name);
    assert.ok((value as (...a: unknown[]) => unknown).length <= 1, name);
  }
});

test("createEntities() creates entities in memory.db and skips existing or repeated names", async () => {
  await withDataDir((dir) => {
    const first = memory.createEntities({
      entities: [
        { name: "Ada", entityType: "person", observations: ["a", "b", "a"] },
        { name: "Ada", entityType: "robot", observations: ["ignored"] },
        { name: "Note", entityType: "thing" },
      ],
    });
    assert.deepEqual(first, [
      { name: "Ada", entityType: "person", observations: ["a", "b"] },
      { name: "Note", entityType: "thing", observations: [] },
    ]);
    assert.deepEqual(
      memory.createEntities({ entities: [{ name: "Ada", entityType: "x", observations: [] }] }),
      [],
    );
    assert.deepEqual(memory.readGraph().entities.map((e) => e.entityType), ["person", "thing"]);
    const db = new DatabaseSync(join(dir, "memory.db"));
    try {
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.["journal_mode"], "wal");
      assert.equal(db.prepare("SELECT count(*) AS n FROM entities").get()?.["n"], 2);
    } finally {
      db.close();
    }
  });
});

test("createRelations() creates relations and skips duplicates", async () => {
  await withDataDir(() => {
    seed();
    const again = memory.createRelations({
      relations: [
        { from: "Ada", to: "Babbage", relationType: "knows" },
        { from: "Babbage", to: "Ada", relationType: "knows" },
        { from: "Babbage", to: "Ada", relationType: "knows" },
      ],
    });
    assert.deepEqual(again, [{ from: "Babbage", to: "Ada", relationType: "knows" }]);
    assert.equal(memory.readGraph().relations.length, 4);
  });
});

test("createRelations() refuses the whole batch when an entity is unknown, naming it", async () => {
  await withDataDir(() => {
    seed();
    assert.throws(
      () =>
        memory.createRelations({
          relations: [
            { from: "Ada", to: "Lovelace", relationType: "is" },
            { from: "Ghost", to: "Ada", relationType: "haunts" },
            { from: "Babbage", to: "Ada", relationType: "admires" },
          ],
        }),
      /Cannot create relations: unknown entities "Lovelace", "Ghost"; create them first with memory\.createEntities/,
    );
    assert.equal(memory.readGraph().relations.length, 3);
  });
});

test("addObservations() adds only new facts and refuses unknown entities atomically", async () => {
  await withDataDir(() => {
    seed();
    assert.deepEqual(
      memory.addObservations({
        observations: [
          { entityName: "Ada", contents: ["Wrote the first program", "Born 1815", "Born 1815"] },
          { entityName: "Analytical", contents: ["Never finished"] },
        ],
      }),
      [
        { entityName: "Ada", addedObservations: ["Born 1815"] },
        { entityName: "Analytical", addedObservations: ["Never finished"] },
      ],
    );
    assert.throws(
      () =>
        memory.addObservations({
          observations: [
            { entityName: "Babbage", contents: ["Should not be added"] },
            { entityName: "Nobody", contents: ["x"] },
          ],
        }),
      /Cannot add observations: unknown entity "Nobody"; create them first/,
    );
    assert.deepEqual(memory.openNodes({ names: ["Babbage"] }).entities[0]?.observations, [
      "Designed engines",
    ]);
    assert.deepEqual(memory.openNodes({ names: ["Ada"] }).entities[0]?.observations, [
      "Wrote the first program",
      "Born 1815",
    ]);
  });
});

test("deleteEntities() removes entities with their observations and relations", async () => {
  await withDataDir((dir) => {
    seed();
    assert.deepEqual(memory.deleteEntities({ entityNames: ["Babbage", "Nobody", "Babbage"] }), {
      deleted: ["Babbage"],
      notFound: ["Nobody"],
    });
    const graph = memory.readGraph();
    assert.deepEqual(graph.entities.map((e) => e.name), ["Ada", "Analytical"]);
    assert.deepEqual(graph.relations, [{
      from: "Ada",
      to: "Analytical",
      relationType: "works_on",
    }]);
    const db = new DatabaseSync(join(dir, "memory.db"));
    try {
      assert.equal(
        db.prepare("SELECT count(*) AS n FROM observations WHERE content = 'Designed engines'")
          .get()?.["n"],
        0,
      );
    } finally {
      db.close();
    }
  });
});

test("deleteObservations() removes facts, counting them and reporting missing entities", async () => {
  await withDataDir(() => {
    seed();
    memory.addObservations({ observations: [{ entityName: "Ada", contents: ["x", "y"] }] });
    assert.deepEqual(
      memory.deleteObservations({
        deletions: [
          { entityName: "Ada", observations: ["x", "not there", "Wrote the first program"] },
          { entityName: "Ghost", observations: ["boo"] },
        ],
      }),
      { deletedCount: 2, missingEntities: ["Ghost"] },
    );
    assert.deepEqual(memory.openNodes({ names: ["Ada"] }).entities[0]?.observations, ["y"]);
  });
});

test("deleteRelations() deletes only relations matching all three fields", async () => {
  await withDataDir(() => {
    seed();
    assert.deepEqual(
      memory.deleteRelations({
        relations: [
          { from: "Ada", to: "Babbage", relationType: "knows" },
          { from: "Babbage", to: "Ada", relationType: "knows" },
          { from: "Ada", to: "Analytical", relationType: "founded" },
          { from: "Ghost", to: "Ada", relationType: "knows" },
        ],
      }),
      { deletedCount: 1 },
    );
    assert.deepEqual(memory.readGraph().relations.map((r) => r.relationType), [
      "works_on",
      "founded",
    ]);
  });
});

test("readGraph() returns everything in creation order, and an empty graph at first", async () => {
  await withDataDir(() => {
    assert.deepEqual(memory.readGraph(), { entities: [], relations: [] });
    seed();
    const graph = memory.readGraph();
    assert.deepEqual(graph.entities.map((e) => e.name), ["Ada", "Babbage", "Analytical"]);
    assert.deepEqual(graph.entities[0], {
      name: "Ada",
      entityType: "person",
      observations: ["Wrote the first program"],
    });
    assert.deepEqual(graph.relations[1], { from: "Ada", to: "Babbage", relationType: "knows" });
  });
});

test("searchNodes() matches names, types and observations ignoring case, with touching relations", async () => {
  await withDataDir(() => {
    seed();
    memory.createEntities({
      entities: [{ name: "Ärger_100%", entityType: "mood", observations: [] }],
    });
    const byObservation = memory.searchNodes({ query: "ENGINES" });
    assert.deepEqual(byObservation.entities.map((e) => e.name), ["Babbage"]);
    assert.deepEqual(byObservation.relations.map((r) => `${r.from}-${r.relationType}-${r.to}`), [
      "Ada-knows-Babbage",
      "Babbage-founded-Analytical",
    ]);
    assert.deepEqual(memory.searchNodes({ query: "PERSON" }).entities.map((e) => e.name), [
      "Ada",
      "Babbage",
    ]);
    assert.deepEqual(memory.searchNodes({ query: "ärger" }).entities.map((e) => e.name), [
      "Ärger_100%",
    ]);
    assert.deepEqual(memory.searchNodes({ query: "%" }).entities.map((e) => e.name), [
      "Ärger_100%",
    ]);
    assert.deepEqual(memory.searchNodes({ query: "nothing like this" }), {
      entities: [],
      relations: [],
    });
  });
});

test("openNodes() returns the named entities, skipping unknown names, with touching relations", async () => {
  await withDataDir(() => {
    seed();
    const graph = memory.openNodes({ names: ["Analytical", "Nobody"] });
    assert.deepEqual(graph.entities, [{
      name: "Analytical",
      entityType: "project",
      observations: [],
    }]);
    assert.deepEqual(graph.relations.map((r) => r.from), ["Ada", "Babbage"]);
    assert.deepEqual(memory.openNodes({ names: [] }), { entities: [], relations: [] });
  });
});

test("memory tools refuse malformed arguments, naming the path", async () => {
  await withDataDir(() => {
    assert.throws(
      () => memory.createEntities({ entities: [{ name: "", entityType: "x" }] }),
      /memory\.createEntities: "entities\[0\]\.name" must be a non-empty string/,
    );
    assert.throws(
      () =>
        memory.createEntities(
          {
            entities: [{ name: "a", entityType: "x", observations: [1] }],
          } as unknown as memory.CreateEntitiesArgs,
        ),
      /"entities\[0\]\.observations" must be an array of strings/,
    );
    assert.throws(
      () =>
        memory.createRelations(
          { relations: [{ from: "a", to: "b" }] } as unknown as memory.CreateRelationsArgs,
        ),
      /"relations\[0\]\.relationType" must be a non-empty string/,
    );
    assert.throws(
      () => memory.openNodes({ names: "Ada" } as unknown as memory.OpenNodesArgs),
      /"names" must be an array of strings/,
    );
    assert.throws(
      () => memory.searchNodes({ q: "x" } as unknown as memory.SearchNodesArgs),
      /unknown property "q" \(expected "query"\)/,
    );
    assert.throws(
      () => memory.deleteEntities(undefined as unknown as memory.DeleteEntitiesArgs),
      /memory\.deleteEntities: expected an object/,
    );
  });
});

test("memory tools fail with a clear error when GATEWAY_DATA_DIR is not set", async () => {
  await withDataDir(() => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    assert.throws(
      () => memory.readGraph(),
      /Cannot open the memory graph: GATEWAY_DATA_DIR is not set/,
    );
  });
});
