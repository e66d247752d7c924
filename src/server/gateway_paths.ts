/**
 * Where a gateway's things live, resolved by the CLI before the server starts; its own module
 * so the parts of the server share it without importing the core.
 * @module
 */

import type { ResolvedRoot } from "../config/gateway_paths.ts";

/** Where things live, resolved by the CLI before the core starts. */
export interface GatewayPaths {
  root: ResolvedRoot;
  dataDir: string;
}
