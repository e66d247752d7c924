/**
 * RPC handlers for discovery: `catalog`, `search`, `describe`, `guide`, `scripts`.
 * @module
 */

import { z } from "zod";
import { catalogParams, describeParams, searchParams } from "../../protocol/rpc_params.ts";
import { searchLines } from "../../protocol/discovery_search.ts";
import { buildCatalog } from "../../discovery/catalog.ts";
import { describePath, UnknownPathError } from "../../discovery/describe.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { renderLlmGuide } from "../../discovery/llm_guide.ts";
import { renderMcpGuide } from "../../discovery/mcp_guide.ts";
import { defineMethod, type MethodGroup } from "../router.ts";
import type { LiveCatalogue } from "../catalogue_views.ts";
import type { CatalogueVersions } from "../../discovery/catalogue_versions.ts";
import type { GatewayConfig } from "../../config/gateway_config.ts";

/** What the discovery methods work on. */
export interface DiscoveryMethodParts {
  /** The catalogue they answer from. */
  readonly catalogue: Pick<LiveCatalogue, "catalogueReady" | "searchIndex" | "scripts">;
  /** The catalogue versions handed out, for `catalog` with `since`. */
  readonly catalogueVersions: CatalogueVersions;
  /** The configuration in force (read per call: a reload changes it). */
  readonly config: () => GatewayConfig;
}

/**
 * How long discovery waits for namespaces still starting (a cold start, a reload) before it
 * answers with what it has; the catalogue then says which are still starting.
 */
const DISCOVERY_WAIT_MS = 15_000;

/** Waits, bounded, until the catalogue holds every namespace that is about to be ready. */
export async function settledCatalogue(
  catalogue: Pick<LiveCatalogue, "catalogueReady">,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    catalogue.catalogueReady(),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, DISCOVERY_WAIT_MS))),
  ]);
  clearTimeout(timer);
}

/** `guide`: for whom (the shell's `--llm-help`, or an MCP host). */
const guideParams = z.strictObject({ for: z.enum(["cli", "mcp"]).optional() });

/** The handlers, keyed by method name. */
export const discoveryMethods: MethodGroup<DiscoveryMethodParts> = {
  catalog: defineMethod(catalogParams, async (params, context) => {
    await settledCatalogue(context.catalogue);
    const entries = context.catalogue.searchIndex().entries;
    const versions = context.catalogueVersions;
    // `since`: what changed from a version this gateway answered before (or, when it no longer
    // remembers that one, `known: false` and the whole catalogue as usual).
    if (params.since !== undefined) {
      const changes = versions.changesSince(params.since, entries);
      if (changes.known) return changes;
      const whole = buildCatalog(entries, { budgetTokens: params.budget ?? 2000 });
      return { ...whole, ...changes, text: `${changes.text}\n\n${whole.text}` };
    }
    const version = versions.current(entries);
    const catalog = buildCatalog(entries, {
      budgetTokens: params.budget ?? 2000,
      footer: `(catalogue version ${version}; catalog since it lists what changed)`,
    });
    return { ...catalog, version };
  }),
  search: defineMethod(searchParams, async (params, context) => {
    await settledCatalogue(context.catalogue);
    const answer = context.catalogue.searchIndex().search(params.query, {
      ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
    });
    // `text` is the page as a model reads it (one line a hit); MCP shows it as the content.
    return { ...answer, text: searchLines(answer) };
  }),
  describe: defineMethod(describeParams, async (params, context) => {
    await settledCatalogue(context.catalogue);
    try {
      return describePath(context.catalogue.searchIndex().entries, params.path, {
        ...(params.depth !== undefined ? { depth: params.depth } : {}),
        ...(params.full !== undefined ? { full: params.full } : {}),
      });
    } catch (error) {
      // A mistyped path is the caller's to fix, like an unknown tool in a script.
      if (!(error instanceof UnknownPathError)) throw error;
      throw new RpcError(RpcCode.GatewayError, error.message, {
        kind: "UnknownTool",
        path: error.path,
        nearest: error.nearest,
      });
    }
  }),
  guide: defineMethod(guideParams, async (params, context) => {
    await settledCatalogue(context.catalogue);
    const entries = context.catalogue.searchIndex().entries;
    const config = context.config();
    const options = { limits: config.exec, pinned: config.pinned };
    // Over MCP the guide speaks of the MCP tools; on the shell, of the CLI's commands.
    return {
      text: params.for === "mcp"
        ? renderMcpGuide(entries, options)
        : renderLlmGuide(entries, options),
    };
  }),
  scripts: defineMethod(z.strictObject({}), (_params, context) =>
    Promise.resolve({
      scripts: context.catalogue.scripts().map(({ name, description, examples, params }) => ({
        name,
        description,
        examples,
        params,
      })),
    })),
};
