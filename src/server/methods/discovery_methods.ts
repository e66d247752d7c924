/**
 * RPC handlers for discovery (SPEC §7): `catalog`, `search`, `describe`, `scripts`.
 * @module
 */

import { z } from "zod";
import { catalogParams, describeParams, searchParams } from "../../protocol/rpc_params.ts";
import { buildCatalog } from "../../discovery/catalog.ts";
import { describePath, UnknownPathError } from "../../discovery/describe.ts";
import { RpcCode, RpcError } from "../../protocol/json_rpc.ts";
import { renderLlmGuide } from "../../discovery/llm_guide.ts";
import { defineMethod, type MethodDefinition } from "../router.ts";

/** The handlers, keyed by method name. */
export const discoveryMethods: Record<string, MethodDefinition> = {
  catalog: defineMethod(catalogParams, (params, context) =>
    Promise.resolve(
      buildCatalog(context.core.searchIndex().entries, { budgetTokens: params.budget ?? 2000 }),
    )),
  search: defineMethod(
    searchParams,
    (params, context) =>
      Promise.resolve(
        context.core.searchIndex().search(params.query, {
          ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
          ...(params.limit !== undefined ? { limit: params.limit } : {}),
          ...(params.offset !== undefined ? { offset: params.offset } : {}),
        }),
      ),
  ),
  describe: defineMethod(describeParams, (params, context) => {
    try {
      return Promise.resolve(describePath(context.core.searchIndex().entries, params.path));
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
  guide: defineMethod(z.strictObject({}), (_params, context) =>
    Promise.resolve({
      text: renderLlmGuide(context.core.searchIndex().entries, { limits: context.core.config.exec }),
    })),
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
