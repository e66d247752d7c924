/**
 * Generated roots for the discovery end-to-end tests: local tool modules whose tools
 * grow in size with their number, so "cheapest first" is visible from outside, named scripts
 * with JSDoc, and a way to wait until every namespace is ready.
 * @module
 */

import { fileURLToPath } from "node:url";
import type { GatewayClient } from "../../src/client/gateway_client.ts";
import type { RootFiles } from "./gateway_harness.ts";
import { pollUntil } from "./poll_until.ts";
import type { NamespaceSummary } from "../../src/protocol/wire_views.ts";

/** The real MCP server the discovery tests add as namespace `everything`. */
export const EVERYTHING_ENTRY = fileURLToPath(
  new URL(
    "../servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);

/**
 * The source of tool module `ns`: `tools` tools named `tool0`… Tool `k` takes an object with
 * `k + 1` typed fields, so its signature is longer than tool `k - 1`'s; every tool has a JSDoc
 * description of the same length ("Reads record K of NS …") and `@param` lines. The last tool
 * takes an exported interface, so `describe` has a declaration to show.
 */
export function toolModuleSource(ns: string, tools: number): string {
  const lines = [`/** Tools of namespace ${ns}, generated for the discovery tests. @module */`, ""];
  for (let k = 0; k < tools; k++) {
    const fields = [`id: string`];
    for (let f = 1; f <= k; f++) fields.push(`field${f}: ${f % 2 === 0 ? "number" : "string"}`);
    const last = k === tools - 1;
    const typeName = `${ns[0]!.toUpperCase()}${ns.slice(1)}Tool${k}Options`;
    if (last) {
      lines.push(
        `/** Options of ${ns}.tool${k}: which record and how to filter it. */`,
        `export interface ${typeName} {`,
        ...fields.map((field) =>
          `  /** Field ${field.split(":")[0]} of the record. */\n  ${field};`
        ),
        `}`,
        "",
      );
    }
    lines.push(
      "/**",
      ` * Reads record ${k} of ${ns} with ${k} filters.`,
      ` * @param args the record id and the filters`,
      " */",
      `export function tool${k}(args: ${last ? typeName : `{ ${fields.join("; ")} }`}): string {`,
      "  return args.id;",
      "}",
      "",
    );
  }
  return lines.join("\n");
}

/** `count` modules `ns0`… with `tools` tools each, as root files under `tools/`. */
export function toolModuleFiles(count: number, tools: number): RootFiles {
  const files: RootFiles = {};
  for (let n = 0; n < count; n++) files[`tools/ns${n}.ts`] = toolModuleSource(`ns${n}`, tools);
  return files;
}

/** One namespace as the `namespaces` RPC lists it. */
export type NamespaceInfo = NamespaceSummary;

/**
 * Waits until the server lists every name in `expected` and none of them is still starting;
 * returns the list. Throws (naming what it last saw) after `timeoutMs`.
 */
export async function waitForNamespaces(
  client: GatewayClient,
  expected: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<NamespaceInfo[]> {
  let last: NamespaceInfo[] = [];
  return await pollUntil("every namespace to finish starting", async () => {
    const answer = await client.request<{ namespaces: NamespaceInfo[] }>("namespaces", {});
    last = answer.namespaces;
    const names = new Set(last.map((ns) => ns.name));
    if (!expected.every((name) => names.has(name))) return undefined;
    return last.some((ns) => ns.status === "starting") ? undefined : last;
  }, { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: 100, last: () => last });
}
