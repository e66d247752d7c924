/**
 * Policy rules that match no tool: likely typos, reported by `gateway tools`/`status`.
 * @module
 */

import type { GatewayConfig } from "../config/gateway_config.ts";
import type { NamespaceRegistry } from "../namespaces/namespace_registry.ts";
import { lookupToolIdentifier } from "../protocol/catalogue.ts";
import { globMatch } from "./call_policy.ts";

/** Policy rules that match no tool of the namespaces, once none is still starting. */
export function idlePolicyRules(
  policy: GatewayConfig["policy"],
  registry: NamespaceRegistry,
): string[] {
  const namespaces = registry.typed();
  if (namespaces.some((ns) => ns.status.state === "starting")) return [];
  const names = namespaces.flatMap((ns) =>
    ns.catalogue.tools.flatMap((tool) => [
      `${ns.name}.${tool.originalName}`,
      `${ns.identifier}.${lookupToolIdentifier(ns, tool.originalName) ?? tool.originalName}`,
    ])
  );
  return policy.filter((rule) => !names.some((n) => globMatch(rule.match, n)))
    .map((rule) =>
      `policy rule "${rule.match}" (${rule.action}) matches no tool: check the namespace and tool names (gateway tools)`
    );
}
