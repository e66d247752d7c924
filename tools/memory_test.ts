import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import postgres from "postgres";
import * as memory from "./memory.ts";
import {
  postgresAvailable,
  type PostgresCluster,
  startPostgresCluster,
} from "../test/support/postgres_cluster.ts";
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

/** Which store a test ran on, and how to count stored facts there behind the module's back. */
interface Backend {
  name: "sqlite" | "postgres";
  /** How many stored facts have exactly this text. */
  countObservations(content: string): Promise<number>;
}

// One real cluster (initdb in a temp dir, see test/support/postgres_cluster.ts) for the file;
// each test gets a database of its own, handed to the module as setting `postgres` the way the
// gateway hands it when `store.postgres` is configured.
const pgAvailable = postgresAvailable();
let cluster: PostgresCluster | null = null;
let databases = 0;

async function withPostgres(body: (backend: Backend) => Promise<void>): Promise<void> {
  cluster ??= await startPostgresCluster();
  const name = `memory_${++databases}`;
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  Deno.env.set("GATEWAY_TOOL_SETTINGS", JSON.stringify({ postgres: url }));
  try {
    await withDataDir(async (dir) => {
      await body({
        name: "postgres",
        countObservations: async (content) => {
          const [row] = await sql.unsafe(
            "SELECT count(*)::int AS n FROM gateway_memory_observations WHERE content = $1",
            [content],
          );
          return Number(row?.["n"]);
        },
      });
      // Nothing went to the instance's own memory.db.
      await assert.rejects(Deno.stat(join(dir, "memory.db")), Deno.errors.NotFound);
    });
  } finally {
    Deno.env.delete("GATEWAY_TOOL_SETTINGS");
    await sql.end();
  }
}

/** Registers `body` twice: on `memory.db`, and on PostgreSQL when it is installed. */
function both(name: string, body: (backend: Backend) => Promise<void>): void {
  test(`${name} [sqlite]`, () =>
    withDataDir((dir) =>
      body({
        name: "sqlite",
        countObservations: (content) => {
          const db = new DatabaseSync(join(dir, "memory.db"));
          try {
            const row = db.prepare("SELECT count(*) AS n FROM observations WHERE content = ?")
              .get(content);
            return Promise.resolve(Number(row?.["n"]));
          } finally {
            db.close();
          }
        },
      })
    ));
  test(`${name} [postgres]`, () => withPostgres(body), { ignore: !pgAvailable, sanitize: false });
}

/** A small graph: Ada works at Analytical, Ada knows Babbage, Babbage founded Analytical. */
async function seed(): Promise<void> {
  await memory.createEntities({
    entities: [
      { name: "Ada", entityType: "person", observations: ["Wrote the first program"] },
      { name: "Babbage", entityType: "person", observations: ["Designed engines"] },
      { name: "Analytical", entityType: "project", observations: [] },
    ],
  });
  await memory.createRelations({
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

both(
  "createEntities() creates entities and skips existing or repeated names",
  async (ctx) => {
    const first = await memory.createEntities({
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
      await memory.createEntities({
        entities: [{ name: "Ada", entityType: "x", observations: [] }],
      }),
      [],
    );
    assert.deepEqual((await memory.readGraph()).entities.map((e) => e.entityType), [
      "person",
      "thing",
    ]);
    assert.equal(await ctx.countObservations("a"), 1);
    if (ctx.name === "sqlite") {
      const db = new DatabaseSync(join(Deno.env.get("GATEWAY_DATA_DIR")!, "memory.db"));
      try {
        assert.equal(db.prepare("PRAGMA journal_mode").get()?.["journal_mode"], "wal");
        assert.equal(db.prepare("SELECT count(*) AS n FROM entities").get()?.["n"], 2);
      } finally {
        db.close();
      }
    }
  },
);

both("createRelations() creates relations and skips duplicates", async () => {
  await seed();
  const again = await memory.createRelations({
    relations: [
      { from: "Ada", to: "Babbage", relationType: "knows" },
      { from: "Babbage", to: "Ada", relationType: "knows" },
      { from: "Babbage", to: "Ada", relationType: "knows" },
    ],
  });
  assert.deepEqual(again, [{ from: "Babbage", to: "Ada", relationType: "knows" }]);
  assert.equal((await memory.readGraph()).relations.length, 4);
});

both(
  "createRelations() refuses the whole batch when an entity is unknown, naming it",
  async () => {
    await seed();
    await assert.rejects(
      async () =>
        await memory.createRelations({
          relations: [
            { from: "Ada", to: "Lovelace", relationType: "is" },
            { from: "Ghost", to: "Ada", relationType: "haunts" },
            { from: "Babbage", to: "Ada", relationType: "admires" },
          ],
        }),
      /Cannot create relations: unknown entities "Lovelace", "Ghost"; create them first with memory\.createEntities/,
    );
    assert.equal((await memory.readGraph()).relations.length, 3);
  },
);

both(
  "addObservations() adds only new facts and refuses unknown entities atomically",
  async () => {
    await seed();
    assert.deepEqual(
      await memory.addObservations({
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
    await assert.rejects(
      async () =>
        await memory.addObservations({
          observations: [
            { entityName: "Babbage", contents: ["Should not be added"] },
            { entityName: "Nobody", contents: ["x"] },
          ],
        }),
      /Cannot add observations: unknown entity "Nobody"; create them first/,
    );
    assert.deepEqual((await memory.openNodes({ names: ["Babbage"] })).entities[0]?.observations, [
      "Designed engines",
    ]);
    assert.deepEqual((await memory.openNodes({ names: ["Ada"] })).entities[0]?.observations, [
      "Wrote the first program",
      "Born 1815",
    ]);
  },
);

both("deleteEntities() removes entities with their observations and relations", async (ctx) => {
  await seed();
  assert.deepEqual(await memory.deleteEntities({ entityNames: ["Babbage", "Nobody", "Babbage"] }), {
    deleted: ["Babbage"],
    notFound: ["Nobody"],
  });
  const graph = await memory.readGraph();
  assert.deepEqual(graph.entities.map((e) => e.name), ["Ada", "Analytical"]);
  assert.deepEqual(graph.relations, [{
    from: "Ada",
    to: "Analytical",
    relationType: "works_on",
  }]);
  assert.equal(await ctx.countObservations("Designed engines"), 0);
});

both(
  "deleteObservations() removes facts, counting them and reporting missing entities",
  async () => {
    await seed();
    await memory.addObservations({ observations: [{ entityName: "Ada", contents: ["x", "y"] }] });
    assert.deepEqual(
      await memory.deleteObservations({
        deletions: [
          { entityName: "Ada", observations: ["x", "not there", "Wrote the first program"] },
          { entityName: "Ghost", observations: ["boo"] },
        ],
      }),
      { deletedCount: 2, missingEntities: ["Ghost"] },
    );
    assert.deepEqual((await memory.openNodes({ names: ["Ada"] })).entities[0]?.observations, ["y"]);
  },
);

both("deleteRelations() deletes only relations matching all three fields", async () => {
  await seed();
  assert.deepEqual(
    await memory.deleteRelations({
      relations: [
        { from: "Ada", to: "Babbage", relationType: "knows" },
        { from: "Babbage", to: "Ada", relationType: "knows" },
        { from: "Ada", to: "Analytical", relationType: "founded" },
        { from: "Ghost", to: "Ada", relationType: "knows" },
      ],
    }),
    { deletedCount: 1 },
  );
  assert.deepEqual((await memory.readGraph()).relations.map((r) => r.relationType), [
    "works_on",
    "founded",
  ]);
});

both(
  "readGraph() returns everything in creation order, and an empty graph at first",
  async () => {
    assert.deepEqual(await memory.readGraph(), { entities: [], relations: [] });
    await seed();
    const graph = await memory.readGraph();
    assert.deepEqual(graph.entities.map((e) => e.name), ["Ada", "Babbage", "Analytical"]);
    assert.deepEqual(graph.entities[0], {
      name: "Ada",
      entityType: "person",
      observations: ["Wrote the first program"],
    });
    assert.deepEqual(graph.relations[1], { from: "Ada", to: "Babbage", relationType: "knows" });
  },
);

both(
  "searchNodes() matches names, types and observations ignoring case, with touching relations",
  async () => {
    await seed();
    await memory.createEntities({
      entities: [{ name: "Ärger_100%", entityType: "mood", observations: [] }],
    });
    const byObservation = await memory.searchNodes({ query: "ENGINES" });
    assert.deepEqual(byObservation.entities.map((e) => e.name), ["Babbage"]);
    assert.deepEqual(byObservation.relations.map((r) => `${r.from}-${r.relationType}-${r.to}`), [
      "Ada-knows-Babbage",
      "Babbage-founded-Analytical",
    ]);
    assert.deepEqual((await memory.searchNodes({ query: "PERSON" })).entities.map((e) => e.name), [
      "Ada",
      "Babbage",
    ]);
    assert.deepEqual((await memory.searchNodes({ query: "ärger" })).entities.map((e) => e.name), [
      "Ärger_100%",
    ]);
    assert.deepEqual((await memory.searchNodes({ query: "%" })).entities.map((e) => e.name), [
      "Ärger_100%",
    ]);
    assert.deepEqual(await memory.searchNodes({ query: "nothing like this" }), {
      entities: [],
      relations: [],
    });
  },
);

both(
  "openNodes() returns the named entities, skipping unknown names, with touching relations",
  async () => {
    await seed();
    const graph = await memory.openNodes({ names: ["Analytical", "Nobody"] });
    assert.deepEqual(graph.entities, [{
      name: "Analytical",
      entityType: "project",
      observations: [],
    }]);
    assert.deepEqual(graph.relations.map((r) => r.from), ["Ada", "Babbage"]);
    assert.deepEqual(await memory.openNodes({ names: [] }), { entities: [], relations: [] });
  },
);

both("memory tools refuse malformed arguments, naming the path", async () => {
  await assert.rejects(
    () => memory.createEntities({ entities: [{ name: "", entityType: "x" }] }),
    /memory\.createEntities: "entities\[0\]\.name" must be a non-empty string/,
  );
  await assert.rejects(
    async () =>
      await memory.createEntities(
        {
          entities: [{ name: "a", entityType: "x", observations: [1] }],
        } as unknown as memory.CreateEntitiesArgs,
      ),
    /"entities\[0\]\.observations" must be an array of strings/,
  );
  await assert.rejects(
    async () =>
      await memory.createRelations(
        { relations: [{ from: "a", to: "b" }] } as unknown as memory.CreateRelationsArgs,
      ),
    /"relations\[0\]\.relationType" must be a non-empty string/,
  );
  await assert.rejects(
    () => memory.openNodes({ names: "Ada" } as unknown as memory.OpenNodesArgs),
    /"names" must be an array of strings/,
  );
  await assert.rejects(
    () => memory.searchNodes({ q: "x" } as unknown as memory.SearchNodesArgs),
    /unknown property "q" \(expected "query"\)/,
  );
  await assert.rejects(
    () => memory.deleteEntities(undefined as unknown as memory.DeleteEntitiesArgs),
    /memory\.deleteEntities: expected an object/,
  );
});

test("memory tools fail with a clear error when GATEWAY_DATA_DIR is not set", async () => {
  await withDataDir(async () => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    await assert.rejects(
      () => memory.readGraph(),
      /Cannot open the memory graph: GATEWAY_DATA_DIR is not set/,
    );
  });
});

both("concurrent calls in one tool host all land, and long facts stay unique", async (ctx) => {
  const long = "x".repeat(10_000);
  const made = await Promise.all(
    [1, 2, 3, 4].map((n) =>
      memory.createEntities({
        entities: [{ name: `E${n}`, entityType: "t", observations: [long] }],
      })
    ),
  );
  assert.deepEqual(made.map((m) => m[0]?.name), ["E1", "E2", "E3", "E4"]);
  assert.deepEqual(
    await memory.addObservations({ observations: [{ entityName: "E1", contents: [long, "y"] }] }),
    [{ entityName: "E1", addedObservations: ["y"] }],
  );
  assert.equal(await ctx.countObservations(long), 4);
});

test("memory on an unreachable PostgreSQL fails naming the shared graph, and retries", async () => {
  await withDataDir(async (dir) => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    Deno.env.set(
      "GATEWAY_TOOL_SETTINGS",
      JSON.stringify({ postgres: "postgres://u@127.0.0.1:1/x" }),
    );
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        await assert.rejects(
          () => memory.readGraph(),
          /Cannot open the shared memory graph in PostgreSQL: .*(ECONNREFUSED|refused)/i,
        );
      }
      await assert.rejects(Deno.stat(join(dir, "memory.db")), Deno.errors.NotFound);
    } finally {
      Deno.env.delete("GATEWAY_TOOL_SETTINGS");
    }
  });
}, { sanitize: false });

test("memory PostgreSQL test cluster removed", async () => {
  await cluster?.stop();
  cluster = null;
}, { ignore: !pgAvailable });
