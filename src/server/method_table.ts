/**
 * The method table every interface (WebSocket, HTTP, MCP) dispatches through, built over the
 * gateway's parts: each method group declares the few parts it works on, and the table
 * needs what they declare together.
 * @module
 */

import type { Logger } from "../logger.ts";
import { Router } from "./router.ts";
import { type ExecMethodParts, execMethods } from "./methods/exec_methods.ts";
import { type NamespaceMethodParts, namespaceMethods } from "./methods/namespace_methods.ts";
import { type HistoryMethodParts, historyMethods } from "./methods/history_methods.ts";
import { type DiscoveryMethodParts, discoveryMethods } from "./methods/discovery_methods.ts";
import { type WorkflowMethodParts, workflowMethods } from "./methods/workflow_methods.ts";
import { type ApprovalMethodParts, approvalMethods } from "./methods/approval_methods.ts";
import { type UpstreamMethodParts, upstreamMethods } from "./methods/upstream_methods.ts";
import { type DashboardMethodParts, dashboardMethods } from "./methods/dashboard_methods.ts";
import { type InspectorMethodParts, inspectorMethods } from "./methods/inspector_methods.ts";

/** Every part a method group declares, and the log the router records bugs in. */
export type MethodParts =
  & ExecMethodParts
  & NamespaceMethodParts
  & DiscoveryMethodParts
  & HistoryMethodParts
  & WorkflowMethodParts
  & ApprovalMethodParts
  & UpstreamMethodParts
  & DashboardMethodParts
  & InspectorMethodParts
  & { readonly log: Pick<Logger, "error"> };

/** Builds the method table every interface dispatches through, over `parts`. */
export function createRouter(parts: MethodParts): Router {
  return Router.over<MethodParts>(
    {
      ...execMethods,
      ...namespaceMethods,
      ...discoveryMethods,
      ...historyMethods,
      ...workflowMethods,
      ...approvalMethods,
      ...upstreamMethods,
      ...dashboardMethods,
      ...inspectorMethods,
    },
    parts,
    parts.log,
  );
}
