/**
 * RPC handlers for discovery (SPEC §7): `catalog`, `search`, `describe`, `guide`, `scripts`.
 * @module
 */

import { z } from "zod";
import { catalogParams, describeParams, searchParams } from "../../protocol/rpc_params.ts";
import { buildCatalog } from "../../discovery/catalog.ts";
import { describePath, UnknownPathError } from "../../discovery/describe.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { renderLlmGuide } from "../../discovery/llm_guide.ts";
import { defineMethod, type MethodContext, type MethodDefinition } from "../router.ts";

/**
 * How long discovery waits for namespaces still starting (a cold start, a reload) before it
 * answers with what it has; the catalogue then says which are still starting.
 */
const DISCOVERY_WAIT_MS = 15_000;

/** Waits, bounded, until the catalogue holds every namespace that is about to be ready. */
export async function settledCatalogue(context: MethodContext): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    context.core.catalogueReady(),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, DISCOVERY_WAIT_MS))),
  ]);
  clearTimeout(timer);
}

/** The handlers, keyed by method name. */
export const discoveryMethods: Record<string, MethodDefinition> = {
  catalog: defineMethod(catalogParams, async (params, context) => {
    await settledCatalogue(context);
    return buildCatalog(context.core.searchIndex().entries, {
      budgetTokens: params.budget ?? 2000,
    });
  }),
  search: defineMethod(searchParams, async (params, context) => {
    await settledCatalogue(context);
    return context.core.searchIndex().search(params.query, {
      ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
    });
  }),
  describe: defineMethod(describeParams, async (params, context) => {
    await settledCatalogue(context);
    try {
      return describePath(context.core.searchIndex().entries, params.path);
    } catch (error) {
      // A mistyped path is the caller's to fix, like an unknown tool in a script (SPEC §6).
      if (!(error instanceof UnknownPathError)) throw error;
      throw new RpcError(RpcCode.GatewayError, error.message, {
        kind: "UnknownTool",
        path: error.path,
        nearest: error.nearest,
      });
    }
  }),
  guide: defineMethod(z.strictObject({}), async (_params, context) => {
    await settledCatalogue(context);
    return {
      text: renderLlmGuide(context.core.searchIndex().entries, {
        limits: context.core.config.exec,
      }),
    };
  }),
  scripts: defineMethod(z.strictObject({}), (_params, context) =>
    Promise.resolve({
      scripts: context.core.scripts().map(({ name, description, examples, params }) => ({
        name,
        description,
        examples,
        params,
      })),
    })),
};
