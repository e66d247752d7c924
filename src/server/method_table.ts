/**
 * The method table every interface (WebSocket, HTTP, MCP) dispatches through.
 * @module
 */

import { Router } from "./router.ts";
import { execMethods } from "./methods/exec_methods.ts";
import { namespaceMethods } from "./methods/namespace_methods.ts";
import { historyMethods } from "./methods/history_methods.ts";
import { discoveryMethods } from "./methods/discovery_methods.ts";
import { workflowMethods } from "./methods/workflow_methods.ts";
import { approvalMethods } from "./methods/approval_methods.ts";
import { upstreamMethods } from "./methods/upstream_methods.ts";
import { dashboardMethods } from "./methods/dashboard_methods.ts";
import { inspectorMethods } from "./methods/inspector_methods.ts";

/** Builds the method table every interface dispatches through. */
export function createRouter(): Router {
  return new Router({
    ...execMethods,
    ...namespaceMethods,
    ...discoveryMethods,
    ...historyMethods,
    ...workflowMethods,
    ...approvalMethods,
    ...upstreamMethods,
    ...dashboardMethods,
    ...inspectorMethods,
  });
}
