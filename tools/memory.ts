/**
 * Bundled tool module `memory`: a knowledge graph of entities, observations and relations, the
 * same tools as `@modelcontextprotocol/server-memory`, kept in SQLite at
 * `$GATEWAY_DATA_DIR/memory.db`. Longer than most files: about half is the documented argument and
 * result types that become the scripts' `tools.memory` types.
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
export function createEntities(args: CreateEntitiesArgs): Entity[] {
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
  return withGraph((db) => {
    const insertEntity = db.prepare(
      "INSERT INTO entities (name, entity_type) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
    );
    const insertObservation = db.prepare(
      "INSERT INTO observations (entity_id, content) VALUES (?, ?) ON CONFLICT DO NOTHING",
    );
    const created: Entity[] = [];
    for (const entity of entities) {
      const result = insertEntity.run(entity.name, entity.entityType);
      if (Number(result.changes) === 0) continue;
      const stored: string[] = [];
      for (const content of entity.observations) {
        if (Number(insertObservation.run(result.lastInsertRowid, content).changes) > 0) {
          stored.push(content);
        }
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
export function createRelations(args: CreateRelationsArgs): Relation[] {
  const tool = "createRelations";
  const input = argsObject(args, { tool, allowed: ["relations"] });
  const relations = relationList(input["relations"], { tool, path: "relations" });
  return withGraph((db) => {
    const ids = entityIds(db, relations.flatMap((r) => [r.from, r.to]));
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
    const insert = db.prepare(
      "INSERT INTO relations (from_id, to_id, relation_type) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    );
    return relations.filter((r) =>
      Number(insert.run(ids.get(r.from) ?? null, ids.get(r.to) ?? null, r.relationType).changes) > 0
    );
  });
}

/**
 * Adds facts to existing entities, skipping ones they already have. Refuses the whole batch
 * when an entity does not exist.
 *
 * @param args The facts to add, per entity.
 * @returns Per entity, the facts that were new.
 */
export function addObservations(args: AddObservationsArgs): ObservationsAdded[] {
  const tool = "addObservations";
  const input = argsObject(args, { tool, allowed: ["observations"] });
  const additions = objectList(input["observations"], { tool, path: "observations" }).map(
    (item, i) => ({
      entityName: text(item["entityName"], { tool, path: `observations[${i}].entityName` }),
      contents: textList(item["contents"], { tool, path: `observations[${i}].contents` }),
    }),
  );
  return withGraph((db) => {
    const ids = entityIds(db, additions.map((a) => a.entityName));
    const unknown = [...new Set(additions.map((a) => a.entityName))].filter((n) => !ids.has(n));
    if (unknown.length > 0) {
      throw new Error(
        `Cannot add observations: unknown ${unknown.length === 1 ? "entity" : "entities"} ${
          quoteList(unknown)
        }; create them first with memory.createEntities`,
      );
    }
    const insert = db.prepare(
      "INSERT INTO observations (entity_id, content) VALUES (?, ?) ON CONFLICT DO NOTHING",
    );
    return additions.map((a) => ({
      entityName: a.entityName,
      addedObservations: a.contents.filter((content) =>
        Number(insert.run(ids.get(a.entityName) ?? null, content).changes) > 0
      ),
    }));
  });
}

/**
 * Deletes entities with their observations and every relation touching them.
 *
 * @param args The names of the entities to delete.
 * @returns Which names were deleted and which did not exist.
 */
export function deleteEntities(args: DeleteEntitiesArgs): DeleteEntitiesResult {
  const tool = "deleteEntities";
  const input = argsObject(args, { tool, allowed: ["entityNames"] });
  const names = [...new Set(textList(input["entityNames"], { tool, path: "entityNames" }))];
  return withGraph((db) => {
    const remove = db.prepare("DELETE FROM entities WHERE name = ?");
    const deleted: string[] = [];
    const notFound: string[] = [];
    for (const name of names) {
      (Number(remove.run(name).changes) > 0 ? deleted : notFound).push(name);
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
export function deleteObservations(args: DeleteObservationsArgs): DeleteObservationsResult {
  const tool = "deleteObservations";
  const input = argsObject(args, { tool, allowed: ["deletions"] });
  const deletions = objectList(input["deletions"], { tool, path: "deletions" }).map((item, i) => ({
    entityName: text(item["entityName"], { tool, path: `deletions[${i}].entityName` }),
    observations: textList(item["observations"], { tool, path: `deletions[${i}].observations` }),
  }));
  return withGraph((db) => {
    const ids = entityIds(db, deletions.map((d) => d.entityName));
    const remove = db.prepare("DELETE FROM observations WHERE entity_id = ? AND content = ?");
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
        deletedCount += Number(remove.run(id, content).changes);
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
export function deleteRelations(args: DeleteRelationsArgs): DeleteRelationsResult {
  const tool = "deleteRelations";
  const input = argsObject(args, { tool, allowed: ["relations"] });
  const relations = relationList(input["relations"], { tool, path: "relations" });
  return withGraph((db) => {
    const remove = db.prepare(
      `DELETE FROM relations WHERE relation_type = ?
         AND from_id = (SELECT id FROM entities WHERE name = ?)
         AND to_id = (SELECT id FROM entities WHERE name = ?)`,
    );
    let deletedCount = 0;
    for (const r of relations) {
      deletedCount += Number(remove.run(r.relationType, r.from, r.to).changes);
    }
    return { deletedCount };
  });
}

/**
 * Returns the whole graph.
 *
 * @returns Every entity and relation.
 */
export function readGraph(): KnowledgeGraph {
  return withGraph((db) => loadGraph(db, null));
}

/**
 * Finds entities whose name, type or any observation contains the query, ignoring case.
 *
 * @param args The text to look for.
 * @returns The matching entities and every relation that touches one of them.
 */
export function searchNodes(args: SearchNodesArgs): KnowledgeGraph {
  const tool = "searchNodes";
  const input = argsObject(args, { tool, allowed: ["query"] });
  const query = input["query"];
  if (typeof query !== "string") {
    throw new TypeError(`Invalid arguments for memory.${tool}: "query" must be a string`);
  }
  return withGraph((db) => {
    db.function(
      "gw_contains",
      { deterministic: true },
      (haystack, needle) => String(haystack).toLowerCase().includes(String(needle)) ? 1 : 0,
    );
    const needle = query.toLowerCase();
    const ids = db.prepare(
      `SELECT id FROM entities e
       WHERE gw_contains(e.name, ?1) OR gw_contains(e.entity_type, ?1)
          OR EXISTS (SELECT 1 FROM observations o WHERE o.entity_id = e.id AND gw_contains(o.content, ?1))`,
    ).all(needle).map((row) => Number(row["id"]));
    return loadGraph(db, ids);
  });
}

/**
 * Returns the named entities; names that do not exist are left out.
 *
 * @param args The names to look up.
 * @returns Those entities and every relation that touches one of them.
 */
export function openNodes(args: OpenNodesArgs): KnowledgeGraph {
  const tool = "openNodes";
  const input = argsObject(args, { tool, allowed: ["names"] });
  const names = textList(input["names"], { tool, path: "names" });
  return withGraph((db) => loadGraph(db, [...entityIds(db, names).values()]));
}

/** Maps the names that exist to their row ids. */
function entityIds(db: DatabaseSync, names: string[]): Map<string, number> {
  const rows = db.prepare(
    "SELECT id, name FROM entities WHERE name IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify([...new Set(names)]));
  return new Map(rows.map((row) => [String(row["name"]), Number(row["id"])]));
}

/**
 * Loads entities (all, or those with the given ids) with their observations, and the relations
 * with at least one endpoint among them.
 */
function loadGraph(db: DatabaseSync, ids: number[] | null): KnowledgeGraph {
  const params = { all: ids === null ? 1 : 0, ids: JSON.stringify(ids ?? []) };
  const chosen = "(SELECT value FROM json_each(:ids))";
  const entityRows = db.prepare(
    `SELECT id, name, entity_type FROM entities WHERE :all OR id IN ${chosen} ORDER BY id`,
  ).all(params);
  const observationRows = db.prepare(
    `SELECT entity_id, content FROM observations WHERE :all OR entity_id IN ${chosen} ORDER BY id`,
  ).all(params);
  const relationRows = db.prepare(
    `SELECT f.name AS "from", t.name AS "to", r.relation_type
     FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id
     WHERE :all OR r.from_id IN ${chosen} OR r.to_id IN ${chosen}
     ORDER BY r.id`,
  ).all(params);
  const byId = new Map<number, Entity>();
  for (const row of entityRows) {
    byId.set(Number(row["id"]), {
      name: String(row["name"]),
      entityType: String(row["entity_type"]),
      observations: [],
    });
  }
  for (const row of observationRows) {
    byId.get(Number(row["entity_id"]))?.observations.push(String(row["content"]));
  }
  return {
    entities: [...byId.values()],
    relations: relationRows.map((row) => ({
      from: String(row["from"]),
      to: String(row["to"]),
      relationType: String(row["relation_type"]),
    })),
  };
}

/**
 * Opens `memory.db`, runs `body` in one transaction, closes it. Opening per call costs about
 * 1 ms, so no handle is cached and the module keeps no state.
 */
function withGraph<T>(body: (db: DatabaseSync) => T): T {
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
    const result = body(db);
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
