/**
 * Bundled tool module `memory`: a knowledge graph of entities, observations and relations, the
 * same tools as `@modelcontextprotocol/server-memory`, kept in SQLite at
 * `$GATEWAY_DATA_DIR/memory.db`. When the gateway keeps its state in PostgreSQL (config
 * `store.postgres`, several instances on one database) it hands the URL to this module as setting
 * `postgres`, and the graph lives in that database's `gateway_memory_*` tables instead, so scripts
 * on every instance see the same graph. Longer than most files: about a third is the documented
 * argument and result types that become the scripts' `tools.memory` types, and the store is
 * written twice behind one small seam (`GraphTx`).
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { join, resolve } from "node:path";

/** A node of the graph: a named thing with a type and facts about it. */
export interface Entity {
  /** Unique name, e.g. "Ada_Lovelace". */
  name: string;
  /** Kind of thing, e.g. "person", "project", "event". */
  entityType: string;
  /** Atomic facts about the entity, one per string, in the order they were added. */
  observations: string[];
}

/** An entity to create; `observations` may be left out. */
export interface NewEntity {
  /** Unique name; an entity with this name already there makes this one be skipped. */
  name: string;
  /** Kind of thing, e.g. "person". */
  entityType: string;
  /** Initial facts. Default: none. */
  observations?: string[];
}

/** A directed edge between two entities, stated in active voice ("works_at"). */
export interface Relation {
  /** Name of the entity the relation starts at. */
  from: string;
  /** Name of the entity the relation ends at. */
  to: string;
  /** What the relation says, in active voice, e.g. "works_at". */
  relationType: string;
}

/** Entities and the relations among them. */
export interface KnowledgeGraph {
  /** Entities in the order they were created. */
  entities: Entity[];
  /** Relations in the order they were created. */
  relations: Relation[];
}

/** Arguments of `memory.createEntities`. */
export interface CreateEntitiesArgs {
  /** Entities to create; names that already exist (or repeat in this list) are skipped. */
  entities: NewEntity[];
}

/** Arguments of `memory.createRelations`. */
export interface CreateRelationsArgs {
  /** Relations to create between existing entities; duplicates are skipped. */
  relations: Relation[];
}

/** Facts to add to one entity. */
export interface ObservationAddition {
  /** The existing entity to add to. */
  entityName: string;
  /** Facts to add; ones the entity already has are skipped. */
  contents: string[];
}

/** Arguments of `memory.addObservations`. */
export interface AddObservationsArgs {
  /** Additions, one per entity. */
  observations: ObservationAddition[];
}

/** What `memory.addObservations` added to one entity. */
export interface ObservationsAdded {
  /** The entity added to. */
  entityName: string;
  /** The facts that were new. */
  addedObservations: string[];
}

/** Arguments of `memory.deleteEntities`. */
export interface DeleteEntitiesArgs {
  /** Names of entities to delete, with their observations and relations. */
  entityNames: string[];
}

/** What `memory.deleteEntities` did. */
export interface DeleteEntitiesResult {
  /** Names that existed and were deleted. */
  deleted: string[];
  /** Names that did not exist. */
  notFound: string[];
}

/** Facts to remove from one entity. */
export interface ObservationDeletion {
  /** The entity to remove from. */
  entityName: string;
  /** Facts to remove (exact text). */
  observations: string[];
}

/** Arguments of `memory.deleteObservations`. */
export interface DeleteObservationsArgs {
  /** Removals, one per entity. */
  deletions: ObservationDeletion[];
}

/** What `memory.deleteObservations` did. */
export interface DeleteObservationsResult {
  /** How many facts were removed in all. */
  deletedCount: number;
  /** Entity names that did not exist. */
  missingEntities: string[];
}

/** Arguments of `memory.deleteRelations`. */
export interface DeleteRelationsArgs {
  /** Relations to delete (all three fields must match). */
  relations: Relation[];
}

/** What `memory.deleteRelations` did. */
export interface DeleteRelationsResult {
  /** How many relations were deleted. */
  deletedCount: number;
}

/** Arguments of `memory.searchNodes`. */
export interface SearchNodesArgs {
  /** Text to find, case-insensitively, in entity names, types and observations. */
  query: string;
}

/** Arguments of `memory.openNodes`. */
export interface OpenNodesArgs {
  /** Names of the entities to return. */
  names: string[];
}

const SCHEMA_VERSION = 1;

/**
 * Creates entities, skipping names that already exist.
 *
 * @param args The entities to create.
 * @returns The entities that were created (skipped ones left out).
 */
export async function createEntities(args: CreateEntitiesArgs): Promise<Entity[]> {
  const tool = "createEntities";
  const input = argsObject(args, { tool, allowed: ["entities"] });
  const entities = objectList(input["entities"], { tool, path: "entities" }).map((item, i) => {
    const at = `entities[${i}]`;
    return {
      name: text(item["name"], { tool, path: `${at}.name` }),
      entityType: text(item["entityType"], { tool, path: `${at}.entityType` }),
      observations: item["observations"] === undefined
        ? []
        : textList(item["observations"], { tool, path: `${at}.observations` }),
    };
  });
  return await withGraph(async (graph) => {
    const created: Entity[] = [];
    for (const entity of entities) {
      const id = await graph.insertEntity(entity.name, entity.entityType);
      if (id === null) continue;
      const stored: string[] = [];
      for (const content of entity.observations) {
        if (await graph.insertObservation(id, content)) stored.push(content);
      }
      created.push({ name: entity.name, entityType: entity.entityType, observations: stored });
    }
    return created;
  });
}

/**
 * Creates relations between existing entities, skipping ones already there. Refuses the whole
 * batch when an endpoint does not exist.
 *
 * @param args The relations to create.
 * @returns The relations that were created (duplicates left out).
 */
export async function createRelations(args: CreateRelationsArgs): Promise<Relation[]> {
  const tool = "createRelations";
  const input = argsObject(args, { tool, allowed: ["relations"] });
  const relations = relationList(input["relations"], { tool, path: "relations" });
  return await withGraph(async (graph) => {
    const ids = await graph.entityIds(relations.flatMap((r) => [r.from, r.to]));
    const unknown = [...new Set(relations.flatMap((r) => [r.from, r.to]))].filter((n) =>
      !ids.has(n)
    );
    if (unknown.length > 0) {
      throw new Error(
        `Cannot create relations: unknown ${unknown.length === 1 ? "entity" : "entities"} ${
          quoteList(unknown)
        }; create them first with memory.createEntities`,
      );
    }
    const created: Relation[] = [];
    for (const r of relations) {
      if (await graph.insertRelation(ids.get(r.from)!, ids.get(r.to)!, r.relationType)) {
        created.push(r);
      }
    }
    return created;
  });
}

/**
 * Adds facts to existing entities, skipping ones they already have. Refuses the whole batch
 * when an entity does not exist.
 *
 * @param args The facts to add, per entity.
 * @returns Per entity, the facts that were new.
 */
export async function addObservations(args: AddObservationsArgs): Promise<ObservationsAdded[]> {
  const tool = "addObservations";
  const input = argsObject(args, { tool, allowed: ["observations"] });
  const additions = objectList(input["observations"], { tool, path: "observations" }).map(
    (item, i) => ({
      entityName: text(item["entityName"], { tool, path: `observations[${i}].entityName` }),
      contents: textList(item["contents"], { tool, path: `observations[${i}].contents` }),
    }),
  );
  return await withGraph(async (graph) => {
    const ids = await graph.entityIds(additions.map((a) => a.entityName));
    const unknown = [...new Set(additions.map((a) => a.entityName))].filter((n) => !ids.has(n));
    if (unknown.length > 0) {
      throw new Error(
        `Cannot add observations: unknown ${unknown.length === 1 ? "entity" : "entities"} ${
          quoteList(unknown)
        }; create them first with memory.createEntities`,
      );
    }
    const added: ObservationsAdded[] = [];
    for (const a of additions) {
      const addedObservations: string[] = [];
      for (const content of a.contents) {
        if (await graph.insertObservation(ids.get(a.entityName)!, content)) {
          addedObservations.push(content);
        }
      }
      added.push({ entityName: a.entityName, addedObservations });
    }
    return added;
  });
}

/**
 * Deletes entities with their observations and every relation touching them.
 *
 * @param args The names of the entities to delete.
 * @returns Which names were deleted and which did not exist.
 */
export async function deleteEntities(args: DeleteEntitiesArgs): Promise<DeleteEntitiesResult> {
  const tool = "deleteEntities";
  const input = argsObject(args, { tool, allowed: ["entityNames"] });
  const names = [...new Set(textList(input["entityNames"], { tool, path: "entityNames" }))];
  return await withGraph(async (graph) => {
    const deleted: string[] = [];
    const notFound: string[] = [];
    for (const name of names) {
      (await graph.deleteEntity(name) ? deleted : notFound).push(name);
    }
    return { deleted, notFound };
  });
}

/**
 * Removes facts from entities; entities that do not exist are reported, not refused.
 *
 * @param args The facts to remove, per entity.
 * @returns How many facts were removed and which entities were missing.
 */
export async function deleteObservations(
  args: DeleteObservationsArgs,
): Promise<DeleteObservationsResult> {
  const tool = "deleteObservations";
  const input = argsObject(args, { tool, allowed: ["deletions"] });
  const deletions = objectList(input["deletions"], { tool, path: "deletions" }).map((item, i) => ({
    entityName: text(item["entityName"], { tool, path: `deletions[${i}].entityName` }),
    observations: textList(item["observations"], { tool, path: `deletions[${i}].observations` }),
  }));
  return await withGraph(async (graph) => {
    const ids = await graph.entityIds(deletions.map((d) => d.entityName));
    let deletedCount = 0;
    const missingEntities: string[] = [];
    for (const deletion of deletions) {
      const id = ids.get(deletion.entityName);
      if (id === undefined) {
        if (!missingEntities.includes(deletion.entityName)) {
          missingEntities.push(deletion.entityName);
        }
        continue;
      }
      for (const content of deletion.observations) {
        if (await graph.deleteObservation(id, content)) deletedCount++;
      }
    }
    return { deletedCount, missingEntities };
  });
}

/**
 * Deletes relations that match on `from`, `to` and `relationType`.
 *
 * @param args The relations to delete.
 * @returns How many relations were deleted.
 */
export async function deleteRelations(args: DeleteRelationsArgs): Promise<DeleteRelationsResult> {
  const tool = "deleteRelations";
  const input = argsObject(args, { tool, allowed: ["relations"] });
  const relations = relationList(input["relations"], { tool, path: "relations" });
  return await withGraph(async (graph) => {
    let deletedCount = 0;
    for (const r of relations) {
      if (await graph.deleteRelation(r)) deletedCount++;
    }
    return { deletedCount };
  });
}

/**
 * Returns the whole graph.
 *
 * @returns Every entity and relation.
 */
export async function readGraph(): Promise<KnowledgeGraph> {
  return await withGraph((graph) => loadGraph(graph, null));
}

/**
 * Finds entities whose name, type or any observation contains the query, ignoring case.
 *
 * @param args The text to look for.
 * @returns The matching entities and every relation that touches one of them.
 */
export async function searchNodes(args: SearchNodesArgs): Promise<KnowledgeGraph> {
  const tool = "searchNodes";
  const input = argsObject(args, { tool, allowed: ["query"] });
  const query = input["query"];
  if (typeof query !== "string") {
    throw new TypeError(`Invalid arguments for memory.${tool}: "query" must be a string`);
  }
  return await withGraph(async (graph) =>
    loadGraph(graph, await graph.matchingIds(query.toLowerCase()))
  );
}

/**
 * Returns the named entities; names that do not exist are left out.
 *
 * @param args The names to look up.
 * @returns Those entities and every relation that touches one of them.
 */
export async function openNodes(args: OpenNodesArgs): Promise<KnowledgeGraph> {
  const tool = "openNodes";
  const input = argsObject(args, { tool, allowed: ["names"] });
  const names = textList(input["names"], { tool, path: "names" });
  return await withGraph(async (graph) =>
    loadGraph(graph, [...(await graph.entityIds(names)).values()])
  );
}

/** Rows of an entity, an observation and a relation as both stores give them back. */
interface GraphRows {
  entities: { id: number; name: string; entityType: string }[];
  observations: { entityId: number; content: string }[];
  relations: Relation[];
}

/**
 * The storage seam: the few operations the tools need, all inside one transaction. One
 * implementation on `memory.db` (SQLite), one on the shared PostgreSQL (tables
 * `gateway_memory_*`), chosen per call by setting `postgres`; see `withGraph`.
 */
interface GraphTx {
  /** Inserts an entity; its new id, or null when the name exists. */
  insertEntity(name: string, entityType: string): Promise<number | null>;
  /** Adds a fact; false when the entity already has it. */
  insertObservation(entityId: number, content: string): Promise<boolean>;
  /** Adds a relation; false when it already exists. */
  insertRelation(fromId: number, toId: number, relationType: string): Promise<boolean>;
  /** Maps the names that exist to their ids. */
  entityIds(names: string[]): Promise<Map<string, number>>;
  /** Deletes an entity with its facts and relations; false when there was none. */
  deleteEntity(name: string): Promise<boolean>;
  /** Removes a fact; false when the entity did not have it. */
  deleteObservation(entityId: number, content: string): Promise<boolean>;
  /** Deletes a relation matching all three fields; false when there was none. */
  deleteRelation(relation: Relation): Promise<boolean>;
  /** Ids of entities whose name, type or a fact contains `needle` (already lower-cased). */
  matchingIds(needle: string): Promise<number[]>;
  /** Entities (all, or the given ids) with their facts, and relations touching them. */
  rows(ids: number[] | null): Promise<GraphRows>;
}

/**
 * Loads entities (all, or those with the given ids) with their observations, and the relations
 * with at least one endpoint among them.
 */
async function loadGraph(graph: GraphTx, ids: number[] | null): Promise<KnowledgeGraph> {
  const rows = await graph.rows(ids);
  const byId = new Map<number, Entity>();
  for (const row of rows.entities) {
    byId.set(row.id, { name: row.name, entityType: row.entityType, observations: [] });
  }
  for (const row of rows.observations) byId.get(row.entityId)?.observations.push(row.content);
  return { entities: [...byId.values()], relations: rows.relations };
}

/** Runs `body` in one transaction on the shared PostgreSQL graph when configured, else `memory.db`. */
async function withGraph<T>(body: (graph: GraphTx) => Promise<T>): Promise<T> {
  const shared = await sharedGraph();
  if (shared !== null) return await shared.transaction(body);
  return await withSqliteGraph(body);
}

/**
 * Calls on `memory.db` one after another: each holds a write transaction across awaits, and a
 * second connection of this process waiting on the lock would block the event loop.
 */
let sqliteQueue: Promise<unknown> = Promise.resolve();

/**
 * Opens `memory.db`, runs `body` in one transaction, closes it. Opening per call costs about
 * 1 ms, so no handle is cached.
 */
function withSqliteGraph<T>(body: (graph: GraphTx) => Promise<T>): Promise<T> {
  const run = sqliteQueue.then(() => sqliteTransaction(body));
  sqliteQueue = run.catch(() => {});
  return run;
}

async function sqliteTransaction<T>(body: (graph: GraphTx) => Promise<T>): Promise<T> {
  const file = join(dataDir(), "memory.db");
  let db: DatabaseSync;
  try {
    Deno.mkdirSync(resolve(file, ".."), { recursive: true });
    db = new DatabaseSync(file);
  } catch (error) {
    throw new Error(`Cannot open the memory graph "${file}": ${messageOf(error)}`, {
      cause: error,
    });
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("BEGIN IMMEDIATE");
    migrate(db);
    const result = await body(sqliteGraph(db));
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    if (!isSqliteError(error)) throw error;
    throw new Error(`Cannot use the memory graph "${file}": ${error.message}`, { cause: error });
  } finally {
    db.close();
  }
}

/** The seam on an open `memory.db` inside a transaction. */
function sqliteGraph(db: DatabaseSync): GraphTx {
  const changed = (result: { changes: number | bigint }) => Number(result.changes) > 0;
  return {
    insertEntity: (name, entityType) => {
      const result = db.prepare(
        "INSERT INTO entities (name, entity_type) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
      ).run(name, entityType);
      return Promise.resolve(changed(result) ? Number(result.lastInsertRowid) : null);
    },
    insertObservation: (entityId, content) =>
      Promise.resolve(changed(
        db.prepare(
          "INSERT INTO observations (entity_id, content) VALUES (?, ?) ON CONFLICT DO NOTHING",
        ).run(entityId, content),
      )),
    insertRelation: (fromId, toId, relationType) =>
      Promise.resolve(changed(
        db.prepare(
          `INSERT INTO relations (from_id, to_id, relation_type) VALUES (?, ?, ?)
           ON CONFLICT DO NOTHING`,
        ).run(fromId, toId, relationType),
      )),
    entityIds: (names) => {
      const rows = db.prepare(
        "SELECT id, name FROM entities WHERE name IN (SELECT value FROM json_each(?))",
      ).all(JSON.stringify([...new Set(names)]));
      return Promise.resolve(new Map(rows.map((row) => [String(row["name"]), Number(row["id"])])));
    },
    deleteEntity: (name) =>
      Promise.resolve(changed(db.prepare("DELETE FROM entities WHERE name = ?").run(name))),
    deleteObservation: (entityId, content) =>
      Promise.resolve(changed(
        db.prepare("DELETE FROM observations WHERE entity_id = ? AND content = ?").run(
          entityId,
          content,
        ),
      )),
    deleteRelation: (r) =>
      Promise.resolve(changed(
        db.prepare(
          `DELETE FROM relations WHERE relation_type = ?
             AND from_id = (SELECT id FROM entities WHERE name = ?)
             AND to_id = (SELECT id FROM entities WHERE name = ?)`,
        ).run(r.relationType, r.from, r.to),
      )),
    matchingIds: (needle) => {
      db.function(
        "gw_contains",
        { deterministic: true },
        (haystack, part) => String(haystack).toLowerCase().includes(String(part)) ? 1 : 0,
      );
      const ids = db.prepare(
        `SELECT id FROM entities e
         WHERE gw_contains(e.name, ?1) OR gw_contains(e.entity_type, ?1)
            OR EXISTS (SELECT 1 FROM observations o WHERE o.entity_id = e.id AND gw_contains(o.content, ?1))`,
      ).all(needle).map((row) => Number(row["id"]));
      return Promise.resolve(ids);
    },
    rows: (ids) => {
      const params = { all: ids === null ? 1 : 0, ids: JSON.stringify(ids ?? []) };
      const chosen = "(SELECT value FROM json_each(:ids))";
      return Promise.resolve(toRows(
        db.prepare(
          `SELECT id, name, entity_type FROM entities WHERE :all OR id IN ${chosen} ORDER BY id`,
        ).all(params),
        db.prepare(
          `SELECT entity_id, content FROM observations WHERE :all OR entity_id IN ${chosen}
           ORDER BY id`,
        ).all(params),
        db.prepare(
          `SELECT f.name AS "from", t.name AS "to", r.relation_type
           FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id
           WHERE :all OR r.from_id IN ${chosen} OR r.to_id IN ${chosen}
           ORDER BY r.id`,
        ).all(params),
      ));
    },
  };
}

/** Turns the three result sets of a graph load, from either store, into typed rows. */
function toRows(
  entities: Record<string, unknown>[],
  observations: Record<string, unknown>[],
  relations: Record<string, unknown>[],
): GraphRows {
  return {
    entities: entities.map((row) => ({
      id: Number(row["id"]),
      name: String(row["name"]),
      entityType: String(row["entity_type"]),
    })),
    observations: observations.map((row) => ({
      entityId: Number(row["entity_id"]),
      content: String(row["content"]),
    })),
    relations: relations.map((row) => ({
      from: String(row["from"]),
      to: String(row["to"]),
      relationType: String(row["relation_type"]),
    })),
  };
}

function migrate(db: DatabaseSync): void {
  const version = Number(db.prepare("PRAGMA user_version").get()?.["user_version"] ?? 0);
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `Cannot use the memory graph: its schema version ${version} is newer than this module's ` +
        `${SCHEMA_VERSION}; update the gateway`,
    );
  }
  db.exec(`
    CREATE TABLE entities (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      entity_type TEXT NOT NULL
    ) STRICT;
    CREATE TABLE observations (
      id INTEGER PRIMARY KEY,
      entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
      content TEXT NOT NULL,
      UNIQUE (entity_id, content)
    ) STRICT;
    CREATE TABLE relations (
      id INTEGER PRIMARY KEY,
      from_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
      to_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
      relation_type TEXT NOT NULL,
      UNIQUE (from_id, to_id, relation_type)
    ) STRICT;
    CREATE INDEX relations_to_id ON relations (to_id);
    PRAGMA user_version = ${SCHEMA_VERSION};
  `);
}

/** One statement on the shared graph: the text with `$n` parameters and their values. */
type Query = (text: string, params: (string | number | null)[]) => Promise<
  Record<string, unknown>[]
>;

/** The shared PostgreSQL graph, when the gateway configured one; see the module doc. */
interface SharedGraph {
  transaction<T>(body: (graph: GraphTx) => Promise<T>): Promise<T>;
}

let shared: { url: string; graph: Promise<SharedGraph> } | null = null;

/** The PostgreSQL graph named by setting `postgres`, or null to use `memory.db`. */
function sharedGraph(): Promise<SharedGraph | null> {
  const url = settingsUrl();
  if (url === null) return Promise.resolve(null);
  if (shared === null || shared.url !== url) {
    const graph = openShared(url);
    shared = { url, graph };
    // A failed open is retried on the next call rather than remembered.
    graph.catch(() => {
      if (shared?.graph === graph) shared = null;
    });
  }
  return shared.graph;
}

/**
 * The tables of the shared graph. Facts and relation types can be long, past what a btree
 * entry holds (about 2.7 kB), so their uniqueness is on an md5 of the text.
 */
const SHARED_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS gateway_memory_entities (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    entity_type TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS gateway_memory_observations (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    entity_id BIGINT NOT NULL REFERENCES gateway_memory_entities (id) ON DELETE CASCADE,
    content TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS gateway_memory_observations_unique
    ON gateway_memory_observations (entity_id, md5(content))`,
  `CREATE TABLE IF NOT EXISTS gateway_memory_relations (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    from_id BIGINT NOT NULL REFERENCES gateway_memory_entities (id) ON DELETE CASCADE,
    to_id BIGINT NOT NULL REFERENCES gateway_memory_entities (id) ON DELETE CASCADE,
    relation_type TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS gateway_memory_relations_unique
    ON gateway_memory_relations (from_id, to_id, md5(relation_type))`,
  `CREATE INDEX IF NOT EXISTS gateway_memory_relations_to_id ON gateway_memory_relations (to_id)`,
];

/** Serialises schema creation among instances starting at once (an arbitrary fixed key). */
const SCHEMA_LOCK = 0x6d656d6f; // "memo"

async function openShared(url: string): Promise<SharedGraph> {
  // Tool modules run standalone (copied into any root, started with --no-config), so the driver
  // is named in full here; it loads only when PostgreSQL is configured.
  // deno-lint-ignore no-import-prefix
  const { default: postgres } = await import("npm:postgres@3.4.9");
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const wrap = (error: unknown, what: string) =>
    new Error(`Cannot ${what} the shared memory graph in PostgreSQL: ${messageOf(error)}`, {
      cause: error,
    });
  try {
    await sql.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
      for (const statement of SHARED_SCHEMA) await tx.unsafe(statement);
    });
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw wrap(error, "open");
  }
  return {
    transaction: async <T>(body: (graph: GraphTx) => Promise<T>): Promise<T> => {
      let result: T | undefined;
      let refusal: unknown = undefined;
      try {
        await sql.begin(async (tx) => {
          const query: Query = async (text, params) => {
            try {
              return [...await tx.unsafe(text, params)];
            } catch (error) {
              throw wrap(error, "use");
            }
          };
          try {
            result = await body(postgresGraph(query));
          } catch (error) {
            refusal = error;
            throw error;
          }
        });
      } catch (error) {
        // The tools' own refusals (unknown entity) and already wrapped errors pass as they are.
        if (error === refusal) throw error;
        throw wrap(error, "use");
      }
      return result as T;
    },
  };
}

/** The seam on the shared PostgreSQL graph inside a transaction. */
function postgresGraph(query: Query): GraphTx {
  const some = (rows: unknown[]) => rows.length > 0;
  const names = (list: string[]) => JSON.stringify([...new Set(list)]);
  return {
    insertEntity: async (name, entityType) => {
      const [row] = await query(
        `INSERT INTO gateway_memory_entities (name, entity_type) VALUES ($1, $2)
         ON CONFLICT (name) DO NOTHING RETURNING id`,
        [name, entityType],
      );
      return row === undefined ? null : Number(row["id"]);
    },
    insertObservation: async (entityId, content) =>
      some(
        await query(
          `INSERT INTO gateway_memory_observations (entity_id, content) VALUES ($1, $2)
           ON CONFLICT DO NOTHING RETURNING id`,
          [entityId, content],
        ),
      ),
    insertRelation: async (fromId, toId, relationType) =>
      some(
        await query(
          `INSERT INTO gateway_memory_relations (from_id, to_id, relation_type) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING RETURNING id`,
          [fromId, toId, relationType],
        ),
      ),
    entityIds: async (list) => {
      const rows = await query(
        `SELECT id, name FROM gateway_memory_entities
         WHERE name IN (SELECT json_array_elements_text($1::text::json))`,
        [names(list)],
      );
      return new Map(rows.map((row) => [String(row["name"]), Number(row["id"])]));
    },
    deleteEntity: async (name) =>
      some(await query("DELETE FROM gateway_memory_entities WHERE name = $1 RETURNING id", [name])),
    deleteObservation: async (entityId, content) =>
      some(
        await query(
          `DELETE FROM gateway_memory_observations WHERE entity_id = $1 AND md5(content) = md5($2)
             AND content = $2 RETURNING id`,
          [entityId, content],
        ),
      ),
    deleteRelation: async (r) =>
      some(
        await query(
          `DELETE FROM gateway_memory_relations WHERE md5(relation_type) = md5($1)
             AND relation_type = $1
             AND from_id = (SELECT id FROM gateway_memory_entities WHERE name = $2)
             AND to_id = (SELECT id FROM gateway_memory_entities WHERE name = $3)
           RETURNING id`,
          [r.relationType, r.from, r.to],
        ),
      ),
    matchingIds: async (needle) => {
      const rows = await query(
        `SELECT id FROM gateway_memory_entities e
         WHERE strpos(lower(e.name), $1) > 0 OR strpos(lower(e.entity_type), $1) > 0
            OR EXISTS (SELECT 1 FROM gateway_memory_observations o
                       WHERE o.entity_id = e.id AND strpos(lower(o.content), $1) > 0)
         ORDER BY id`,
        [needle],
      );
      return rows.map((row) => Number(row["id"]));
    },
    rows: async (ids) => {
      const params = [ids === null ? 1 : 0, JSON.stringify(ids ?? [])];
      const chosen = "(SELECT json_array_elements_text($2::text::json)::bigint)";
      return toRows(
        await query(
          `SELECT id, name, entity_type FROM gateway_memory_entities
           WHERE $1::int = 1 OR id IN ${chosen} ORDER BY id`,
          params,
        ),
        await query(
          `SELECT entity_id, content FROM gateway_memory_observations
           WHERE $1::int = 1 OR entity_id IN ${chosen} ORDER BY id`,
          params,
        ),
        await query(
          `SELECT f.name AS "from", t.name AS "to", r.relation_type
           FROM gateway_memory_relations r
           JOIN gateway_memory_entities f ON f.id = r.from_id
           JOIN gateway_memory_entities t ON t.id = r.to_id
           WHERE $1::int = 1 OR r.from_id IN ${chosen} OR r.to_id IN ${chosen}
           ORDER BY r.id`,
          params,
        ),
      );
    },
  };
}

function settingsUrl(): string | null {
  const text = Deno.env.get("GATEWAY_TOOL_SETTINGS");
  if (text === undefined || text === "") return null;
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch {
    return null;
  }
  const url = typeof settings === "object" && settings !== null
    ? (settings as Record<string, unknown>)["postgres"]
    : undefined;
  return typeof url === "string" && url !== "" ? url : null;
}

function dataDir(): string {
  const dir = Deno.env.get("GATEWAY_DATA_DIR");
  if (dir === undefined || dir === "") {
    throw new Error(
      "Cannot open the memory graph: GATEWAY_DATA_DIR is not set; the gateway sets it for " +
        "tool hosts (set it yourself when importing tools/memory.ts directly)",
    );
  }
  return resolve(dir);
}

/** Checks the argument is a plain object with only the properties the tool knows. */
function argsObject(
  args: unknown,
  options: { tool: string; allowed: readonly string[] },
): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new TypeError(`Invalid arguments for memory.${options.tool}: expected an object`);
  }
  for (const name of Object.keys(args)) {
    if (!options.allowed.includes(name)) {
      throw new TypeError(
        `Invalid arguments for memory.${options.tool}: unknown property "${name}" (expected ${
          options.allowed.map((a) => `"${a}"`).join(", ")
        })`,
      );
    }
  }
  return args as Record<string, unknown>;
}

/** Where a value sits in a tool's arguments, for error messages. */
interface ArgPath {
  tool: string;
  path: string;
}

function text(value: unknown, at: ArgPath): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Invalid arguments for memory.${at.tool}: "${at.path}" must be a non-empty string`,
    );
  }
  return value;
}

function textList(value: unknown, at: ArgPath): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new TypeError(
      `Invalid arguments for memory.${at.tool}: "${at.path}" must be an array of strings`,
    );
  }
  return value;
}

function objectList(value: unknown, at: ArgPath): Record<string, unknown>[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`Invalid arguments for memory.${at.tool}: "${at.path}" must be an array`);
  }
  value.forEach((item, i) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new TypeError(
        `Invalid arguments for memory.${at.tool}: "${at.path}[${i}]" must be an object`,
      );
    }
  });
  return value as Record<string, unknown>[];
}

function relationList(value: unknown, at: ArgPath): Relation[] {
  return objectList(value, at).map((item, i) => ({
    from: text(item["from"], { tool: at.tool, path: `${at.path}[${i}].from` }),
    to: text(item["to"], { tool: at.tool, path: `${at.path}[${i}].to` }),
    relationType: text(item["relationType"], {
      tool: at.tool,
      path: `${at.path}[${i}].relationType`,
    }),
  }));
}

function quoteList(names: string[]): string {
  return names.map((n) => `"${n}"`).join(", ");
}

function isSqliteError(error: unknown): error is Error {
  return error instanceof Error &&
    String((error as { code?: unknown }).code).startsWith("ERR_SQLITE");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
