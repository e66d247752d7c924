/**
 * The layer check `deno task check` runs: every top-level area of `src/` has a rank, and a file
 * may import only areas of a higher rank (downstream along the request path: cli → client →
 * server → exec/workflows → discovery → namespaces/store → process/telemetry/logger → protocol
 * → config). Areas sharing a rank are peers that must never import each other. The client
 * reaches the server only over the wire, and the sandboxed script runner (`exec/runner/`) may
 * load, directly or through any chain of imports, nothing but the wire protocol. Tools are
 * called by the tool dispatcher alone (behind the policy gate): no other file calls a
 * namespace's `callTool`/`callValue` or claims the registry's calls.
 * @module
 */

import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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

/** Folder (under `src/`) whose files may reach only the wire protocol, transitively. */
const SANDBOXED = "exec/runner/";

/** Finds every relative import (static, re-export, side-effect or dynamic) in a file's text. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec && spec.startsWith(".")) found.push(spec);
  }
  return found;
}

function areaOf(srcDir: string, file: string): string {
  return relative(srcDir, file).split("/")[0] ?? "";
}

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) files.push(path);
  }
  return files.sort();
}

/** One problem per import against the ranks or the forbidden list. */
function directProblems(srcDir: string, file: string, spec: string, target: string): string[] {
  const from = areaOf(srcDir, file);
  const to = areaOf(srcDir, target);
  if (from === to) return [];
  const where = `${relative(srcDir, file)} imports ${spec}`;
  const reason = FORBIDDEN[from]?.[to];
  if (reason !== undefined) return [`${where}: ${from}/ must not import ${to}/ (${reason})`];
  const rankFrom = RANK[from];
  const rankTo = RANK[to];
  if (rankFrom === undefined || rankTo === undefined) {
    const unknown = rankFrom === undefined ? from : to;
    return [`${where}: unknown area "${unknown}" (add it to RANK in test/layer_check.ts)`];
  }
  if (rankTo === rankFrom) {
    return [`${where}: ${from}/ and ${to}/ are peers (same rank) and must not import each other`];
  }
  if (rankTo < rankFrom) {
    return [`${where}: ${from}/ is downstream of ${to}/; imports must point downstream`];
  }
  return [];
}

/**
 * Lists the files the sandboxed runner would load outside the wire protocol, each with the
 * chain of imports that reaches it.
 */
function sandboxProblems(srcDir: string, graph: Map<string, string[]>): string[] {
  const allowed = (file: string) => {
    const path = relative(srcDir, file);
    return path.startsWith("protocol/") || path.startsWith(SANDBOXED);
  };
  const via = new Map<string, string | null>();
  const pending = [...graph.keys()].filter((file) => relative(srcDir, file).startsWith(SANDBOXED));
  for (const file of pending) via.set(file, null);
  const problems: string[] = [];
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (!allowed(file)) {
      const chain: string[] = [];
      for (let at: string | null | undefined = file; at; at = via.get(at)) {
        chain.unshift(relative(srcDir, at));
      }
      problems.push(
        `${chain.join(" → ")}: the script runner (src/${SANDBOXED}) may load only ` +
          `src/protocol/ (its way back to the gateway is the socket)`,
      );
      continue;
    }
    for (const target of graph.get(file) ?? []) {
      if (via.has(target)) continue;
      via.set(target, file);
      pending.push(target);
    }
  }
  return problems;
}

/** Longest a source file may be without saying why at its top (issue 11). */
export const MAX_LINES = 400;

/**
 * A file over {@linkcode MAX_LINES} lines must say why in its module comment, with
 * "(Over 400 lines: <reason>)" among its first 15 lines; null when it is short or says so.
 */
export function sizeProblem(text: string): string | null {
  const lines = text.split("\n");
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (count <= MAX_LINES) return null;
  if (/\(Over 400 lines: [^)]+\)/.test(lines.slice(0, 15).join(" "))) return null;
  return `${count} lines, over ${MAX_LINES} with no "(Over 400 lines: <reason>)" at its top; ` +
    `split it or say why it reads best whole`;
}

/** The one file that calls namespaces' tools, after the policy gate. */
const DISPATCHER = "server/tool_dispatcher.ts";

/**
 * Receivers of `.callTool(` that lead to the dispatcher rather than to a namespace: the
 * gateway core, the dispatcher itself, and the run's call broker wiring (`deps`, `options`).
 */
const GATED_CALLERS = /(?:\bcore|#dispatcher|\bdeps|\boptions)\s*\.callTool\(/;

/**
 * Calls that would reach a tool around the policy gate, in a file outside `src/namespaces/`
 * (which implements the calls) and the dispatcher; one message per line.
 */
export function gateProblems(path: string, text: string): string[] {
  if (path.startsWith("namespaces/") || path === DISPATCHER) return [];
  const problems: string[] = [];
  text.split("\n").forEach((line, index) => {
    const bypass = /\.claimCalls\(|\.callValue\(/.test(line) ||
      (/\.callTool\(/.test(line) && !GATED_CALLERS.test(line));
    if (bypass) {
      problems.push(
        `${path}:${index + 1}: calls a namespace's tool directly; every call goes through ` +
          `the tool dispatcher (GatewayCore.callTool), which applies the policy gate`,
      );
    }
  });
  return problems;
}

/**
 * Returns one message per import against the flow, and per long file without a reason; empty
 * when the tree is clean.
 */
export async function checkLayers(srcDir: string): Promise<string[]> {
  const root = resolve(srcDir);
  const problems: string[] = [];
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles(root)) {
    const targets: string[] = [];
    const text = await Deno.readTextFile(file);
    const size = sizeProblem(text);
    if (size !== null) problems.push(`${relative(root, file)}: ${size}`);
    problems.push(...gateProblems(relative(root, file), text));
    for (const spec of importsOf(text)) {
      const target = resolve(dirname(file), spec);
      targets.push(target);
      problems.push(...directProblems(root, file, spec, target));
    }
    graph.set(file, targets);
  }
  problems.push(...sandboxProblems(root, graph));
  return problems;
}

if (import.meta.main) {
  const src = fileURLToPath(new URL("../src/", import.meta.url));
  const problems = await checkLayers(src);
  for (const p of problems) console.error(`layer check: ${p}`);
  if (problems.length > 0) Deno.exit(1);
  console.error("layer check: clean");
}
