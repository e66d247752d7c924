/**
 * The layer check `deno task check` runs, over the module graph Deno resolves
 * (`project_graph.ts`: static, type-only, dynamic and `lazyImport()` edges). Every top-level
 * area of `src/` has a rank, and a file may import only areas of a higher rank (downstream
 * along the request path: cli → client → server → exec/workflows → discovery →
 * namespaces/store → process/telemetry/logger → protocol → config); areas sharing a rank are
 * peers that never import each other. Inside `src/namespaces/` the kinds (`local/`, `mcp/`,
 * `openapi/`, `graphql/`) stand side by side over what they share (`kind_support/`), which
 * stands over the Namespace contract and the registry (the folder's own files). No two files
 * of `src/` import each other, directly or around a cycle. The client reaches the server only
 * over the wire; the sandboxed script runner (`exec/runner/`) loads, through any chain of
 * imports, nothing but the wire protocol. Bundled tool modules (`tools/`) load nothing of the
 * gateway's. Tools are called by the tool dispatcher alone (behind the policy gate): no other
 * file calls a namespace's `callTool`/`callValue` or claims the registry's calls. And no
 * TypeScript file cites a document the repository does not contain (`reference_check.ts`).
 * @module
 */

import { fileURLToPath } from "node:url";
import { type Edge, type ProjectGraph, projectGraph } from "./project_graph.ts";
import { packageProblems } from "./package_check.ts";
import { checkReferences } from "./reference_check.ts";

/**
 * Rank of each top-level area of `src/`; a file may import only a higher rank. Equal ranks are
 * peers that never import each other (checked).
 */
export const RANK: Readonly<Record<string, number>> = {
  "main.ts": 0,
  cli: 1,
  client: 2,
  server: 3,
  mcp_server: 4,
  exec: 5,
  workflows: 5,
  discovery: 6,
  namespaces: 7,
  store: 7,
  telemetry: 8,
  process: 8,
  "logger.ts": 8,
  protocol: 9,
  config: 10,
};

/**
 * Ranks inside `src/namespaces/`, by sub-folder; `.` is the folder's own files (the Namespace
 * contract, the registry, the script globals). The kinds share a rank: none imports another,
 * and what two kinds use lives in `kind_support/`, below them.
 */
export const NAMESPACE_RANK: Readonly<Record<string, number>> = {
  local: 1,
  mcp: 1,
  openapi: 1,
  graphql: 1,
  kind_support: 2,
  ".": 3,
};

/** The rank of the namespace kinds in {@linkcode NAMESPACE_RANK}. */
const KIND_RANK = 1;

/**
 * Imports forbidden whatever the ranks say, each with the reason shown when one appears: the
 * client talks to the server over the wire, and imports that once ran back up the layers stay
 * named here so their message says what to do instead.
 */
const FORBIDDEN: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  client: Object.fromEntries(
    ["server", "mcp_server", "exec", "namespaces", "discovery", "workflows", "store"].map(
      (to) => [to, "the client talks to the server over the wire"],
    ),
  ),
  namespaces: {
    discovery: "naming and nearest names live in src/protocol/names.ts, the catalogue model " +
      "in src/protocol/catalogue.ts",
  },
  store: { workflows: "types the store keeps are defined in the store and used by workflows" },
  protocol: Object.fromEntries(
    Object.keys(RANK).filter((area) => area !== "protocol" && area !== "config").map(
      (to) => [to, "the wire protocol is the bottom of the request path"],
    ),
  ),
};

/** Folder whose files may reach only the wire protocol, transitively. */
const SANDBOXED = "src/exec/runner/";

/** Edges that load a module in the importer's process (a started process is not loaded). */
const LOADS: ReadonlySet<Edge["kind"]> = new Set(["code", "type", "lazy"]);

/** A product module of `src/` (tests, beside the code, may import across the layers). */
function isSource(path: string): boolean {
  return path.startsWith("src/") && !path.endsWith("_test.ts");
}

/** `src/a/b.ts` → `a`; `src/main.ts` → `main.ts`. */
function areaOf(path: string): string {
  return path.split("/")[1] ?? "";
}

/** `src/namespaces/mcp/x.ts` → `mcp`; `src/namespaces/namespace.ts` → `.`. */
function namespaceSubArea(path: string): string {
  const parts = path.split("/");
  return parts.length > 3 ? parts[2]! : ".";
}

/** The problem of an import from area `from` to area `to` under `ranks`; null when it is fine. */
function rankProblem(
  where: string,
  [from, to]: [string, string],
  ranks: Readonly<Record<string, number>>,
  label: (area: string) => string,
): string | null {
  const rankFrom = ranks[from];
  const rankTo = ranks[to];
  if (rankFrom === undefined || rankTo === undefined) {
    const unknown = label(rankFrom === undefined ? from : to);
    const table = ranks === RANK ? "RANK" : "NAMESPACE_RANK";
    return `${where}: unknown area "${unknown}" (add it to ${table} in test/layer_check.ts)`;
  }
  if (rankTo === rankFrom) {
    return `${where}: ${label(from)} and ${label(to)} are peers (same rank) and must not ` +
      `import each other`;
  }
  if (rankTo < rankFrom) {
    return `${where}: ${label(from)} is downstream of ${label(to)}; imports must point downstream`;
  }
  return null;
}

/** One problem per import of a `src/` file against the ranks or the forbidden list. */
function rankProblems(path: string, edge: Edge): string[] {
  const where = `${path}:${edge.line} imports ${edge.written}`;
  if (!edge.to.startsWith("src/")) {
    if (edge.to.startsWith("test/") || edge.to.startsWith("tools/")) {
      return [
        `${where}: src/ never loads ${edge.to.split("/")[0]}/ (the product ships without it)`,
      ];
    }
    return [];
  }
  const from = areaOf(path);
  const to = areaOf(edge.to);
  if (from === to) {
    if (from !== "namespaces") return [];
    const subFrom = namespaceSubArea(path);
    const subTo = namespaceSubArea(edge.to);
    if (subFrom === subTo) return [];
    if (NAMESPACE_RANK[subFrom] === KIND_RANK && NAMESPACE_RANK[subTo] === KIND_RANK) {
      return [
        `${where}: namespaces/${subFrom}/ and namespaces/${subTo}/ are namespace kinds, side ` +
        `by side: neither imports the other (move what both use to src/namespaces/kind_support/)`,
      ];
    }
    const label = (sub: string) => sub === "." ? "src/namespaces/*.ts" : `namespaces/${sub}/`;
    const problem = rankProblem(where, [subFrom, subTo], NAMESPACE_RANK, label);
    return problem === null ? [] : [problem];
  }
  const reason = FORBIDDEN[from]?.[to];
  if (reason !== undefined) return [`${where}: ${from}/ must not import ${to}/ (${reason})`];
  const problem = rankProblem(where, [from, to], RANK, (area) => `${area}/`);
  return problem === null ? [] : [problem];
}

/**
 * Lists the files the sandboxed runner would load outside the wire protocol, each with the
 * chain of imports that reaches it.
 */
function sandboxProblems(graph: ProjectGraph): string[] {
  const allowed = (file: string) => file.startsWith("src/protocol/") || file.startsWith(SANDBOXED);
  const via = new Map<string, string | null>();
  const pending = [...graph.modules.keys()].filter((file) =>
    file.startsWith(SANDBOXED) && isSource(file)
  );
  for (const file of pending) via.set(file, null);
  const problems: string[] = [];
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (!allowed(file)) {
      const chain: string[] = [];
      for (let at: string | null | undefined = file; at; at = via.get(at)) chain.unshift(at);
      problems.push(
        `${chain.join(" → ")}: the script runner (${SANDBOXED}) may load only ` +
          `src/protocol/ (its way back to the gateway is the socket)`,
      );
      continue;
    }
    for (const edge of graph.modules.get(file) ?? []) {
      if (!LOADS.has(edge.kind) || via.has(edge.to)) continue;
      via.set(edge.to, file);
      pending.push(edge.to);
    }
  }
  return problems;
}

/** Shortest path from `from` to `to` over `next`, both ends included; null when none. */
function shortestPath(
  from: string,
  to: string,
  next: (file: string) => readonly string[],
): string[] | null {
  const via = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file === to) {
      const path: string[] = [];
      for (let at: string | null | undefined = to; at; at = via.get(at)) path.unshift(at);
      return path;
    }
    for (const target of next(file)) {
      if (via.has(target)) continue;
      via.set(target, file);
      queue.push(target);
    }
  }
  return null;
}

/**
 * The import cycles among `src/` files, each as a path `a.ts → b.ts → a.ts`: for every import
 * that lies on a cycle, the shortest cycle through it, each cycle once.
 */
export function cycleProblems(graph: ProjectGraph): string[] {
  const next = new Map<string, string[]>();
  for (const [file, edges] of graph.modules) {
    if (!isSource(file)) continue;
    next.set(
      file,
      [
        ...new Set(edges.filter((e) => LOADS.has(e.kind) && isSource(e.to)).map((e) => e.to)),
      ].sort(),
    );
  }
  const targets = (file: string) => next.get(file) ?? [];
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const [file, tos] of [...next].sort(([a], [b]) => a < b ? -1 : 1)) {
    for (const to of tos) {
      const back = shortestPath(to, file, targets);
      if (back === null) continue;
      const cycle = [file, ...back];
      // One rotation names the cycle: the one starting at its alphabetically first file.
      const ring = cycle.slice(0, -1);
      const start = ring.indexOf([...ring].sort()[0]!);
      const key = [...ring.slice(start), ...ring.slice(0, start)].join(" → ");
      if (seen.has(key)) continue;
      seen.add(key);
      const first = ring[start]!;
      problems.push(
        `${key} → ${first}: these files import each other; move what they share into a file ` +
          `they both import, or pass it in`,
      );
    }
  }
  return problems;
}

/**
 * What a bundled tool module (`tools/`) may import: Node's built-ins, pinned `npm:`/`jsr:`
 * packages and its siblings. A tool module runs in the shared tool host of any root, with no
 * import map when the root has no deno.json, so it brings everything it loads. Its tests run
 * in this repository and may use its test support (`test/`), never the gateway's code.
 */
export function toolProblems(graph: ProjectGraph): string[] {
  const problems: string[] = [];
  for (const [file, edges] of graph.modules) {
    if (!file.startsWith("tools/")) continue;
    const isTest = file.endsWith("_test.ts");
    for (const edge of edges) {
      const where = `${file}:${edge.line} imports ${edge.written}`;
      if (edge.to.startsWith("src/") || (!isTest && edge.to.startsWith("test/"))) {
        problems.push(
          `${where}: a tool module loads nothing of the gateway's (${
            edge.to.split("/")[0]
          }/): it runs in any root's tool host, beside no checkout`,
        );
      } else if (
        !isTest && !/^(?:node:|\.\.?\/|(?:npm|jsr):\/?(?:@[^/@]+\/)?[^/@]+@\d)/.test(edge.written)
      ) {
        problems.push(
          `${where}: a tool module imports node: built-ins, pinned npm:/jsr: packages ` +
            `(npm:name@version) and its siblings: a root without a deno.json has no import map`,
        );
      }
    }
  }
  return problems;
}

/** The one file that calls namespaces' tools, after the policy gate. */
const DISPATCHER = "src/server/tool_dispatcher.ts";

/**
 * Receivers of `.callTool(` that lead to the dispatcher rather than to a namespace: the
 * dispatcher itself or a part named for it (`context.dispatcher`), and the run's call broker
 * wiring (`deps`, `options`).
 */
const GATED_CALLERS = /(?:[#.]dispatcher|\bdeps|\boptions)\s*\.callTool\(/;

/**
 * Calls that would reach a tool around the policy gate, in a file outside `src/namespaces/`
 * (which implements the calls) and the dispatcher; one message per line.
 */
export function gateProblems(path: string, text: string): string[] {
  if (path.startsWith("src/namespaces/") || path === DISPATCHER) return [];
  const problems: string[] = [];
  text.split("\n").forEach((line, index) => {
    const bypass = /\.claimCalls\(|\.callValue\(/.test(line) ||
      (/\.callTool\(/.test(line) && !GATED_CALLERS.test(line));
    if (bypass) {
      problems.push(
        `${path}:${index + 1}: calls a namespace's tool directly; every call goes through ` +
          `the tool dispatcher (ToolDispatcher.callTool), which applies the policy gate`,
      );
    }
  });
  return problems;
}

/** Every layer problem of a project's graph; empty when the tree is clean. */
export function layerProblems(graph: ProjectGraph): string[] {
  const problems = [...graph.problems];
  for (const [file, edges] of [...graph.modules].sort(([a], [b]) => a < b ? -1 : 1)) {
    if (!isSource(file)) continue;
    problems.push(...gateProblems(file, graph.texts.get(file) ?? ""));
    for (const edge of edges) if (LOADS.has(edge.kind)) problems.push(...rankProblems(file, edge));
  }
  problems.push(...sandboxProblems(graph));
  problems.push(...cycleProblems(graph));
  problems.push(...toolProblems(graph));
  return problems;
}

/**
 * Builds the graph of the project at `root` (resolving npm packages with `lock`, when given)
 * and returns its layer problems.
 */
export async function checkLayers(root: string, lock?: string): Promise<string[]> {
  return layerProblems(await projectGraph(root, lock === undefined ? {} : { lock }));
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../", import.meta.url));
  // The tests' lock: the graph includes the tests, whose packages the product's lock leaves out.
  const graph = await projectGraph(root, { lock: "test/deno.lock" });
  const problems = [
    ...layerProblems(graph),
    ...await packageProblems(graph),
    ...await checkReferences(root),
  ];
  for (const p of problems) console.error(`layer check: ${p}`);
  if (problems.length > 0) Deno.exit(1);
  console.error(`layer check: clean (${graph.modules.size} modules)`);
}
