/**
 * The layer check `deno task check` runs: imports must point downstream along the request
 * path (cli → client → server → exec/namespaces/… → config/protocol), the client reaches the
 * server only over the wire, and the script runner imports only the wire protocol and the pure
 * discovery code.
 * @module
 */

import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Rank of each top-level area of `src/`; a file may import only its own rank or higher. */
const RANK: Record<string, number> = {
  "main.ts": 0,
  cli: 1,
  client: 2,
  server: 3,
  mcp_server: 3,
  exec: 4,
  namespaces: 4,
  discovery: 4,
  workflows: 4,
  store: 4,
  protocol: 5,
  config: 6,
  "logger.ts": 6,
  telemetry: 6,
  process: 6,
};

/** Areas a given area must never import, whatever the ranks say. */
const FORBIDDEN: Record<string, string[]> = {
  client: ["server", "mcp_server", "exec", "namespaces", "discovery", "workflows", "store"],
};

/** Finds every relative import in a file's text. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2];
    if (spec && spec.startsWith(".")) found.push(spec);
  }
  return found;
}

function areaOf(srcDir: string, file: string): string {
  return relative(srcDir, file).split("/")[0] ?? "";
}

/** Returns one message per import against the flow; empty when the tree is clean. */
export async function checkLayers(srcDir: string): Promise<string[]> {
  const problems: string[] = [];
  const walk = async (dir: string): Promise<string[]> => {
    const files: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) files.push(...await walk(path));
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) files.push(path);
    }
    return files;
  };
  for (const file of await walk(srcDir)) {
    const from = areaOf(srcDir, file);
    const inRunner = relative(srcDir, file).startsWith("exec/runner/");
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      const target = resolve(dirname(file), spec);
      const to = areaOf(srcDir, target);
      const where = `${relative(srcDir, file)} imports ${spec}`;
      // The runner (inside the script's sandbox) may use the wire protocol and the pure
      // discovery code (so in-script search() ranks like the server's); never the server.
      if (
        inRunner && to !== "protocol" && to !== "discovery" &&
        !relative(srcDir, target).startsWith("exec/runner/")
      ) {
        problems.push(
          `${where}: the script runner may import only src/protocol/ and src/discovery/ (its way back is the socket)`,
        );
        continue;
      }
      if (FORBIDDEN[from]?.includes(to)) {
        problems.push(
          `${where}: ${from}/ must not import ${to}/ (it talks to the server over the wire)`,
        );
        continue;
      }
      const rankFrom = RANK[from];
      const rankTo = RANK[to];
      if (rankFrom === undefined || rankTo === undefined) {
        problems.push(
          `${where}: unknown area "${
            rankFrom === undefined ? from : to
          }" (add it to RANK in test/layer_check.ts)`,
        );
      } else if (rankTo < rankFrom) {
        problems.push(`${where}: ${from}/ is downstream of ${to}/; imports must point downstream`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const src = fileURLToPath(new URL("../src/", import.meta.url));
  const problems = await checkLayers(src);
  for (const p of problems) console.error(`layer check: ${p}`);
  if (problems.length > 0) Deno.exit(1);
  console.error("layer check: clean");
}
