/**
 * The one stderr line the CLI prints while a call of its run is held by an `ask` policy rule:
 * the call, and the exact `gateway approve` command that answers it.
 * @module
 */

import type { ServerNotification } from "../client/gateway_http_client.ts";
import type { PendingApproval } from "../protocol/wire_views.ts";
import type { CliContext } from "./cli_context.ts";

/** The `gateway approve` command for a held call, with `--root` when the root came from one. */
export function approveCommandLine(
  pending: PendingApproval,
  context: Pick<CliContext, "root">,
): string {
  const root = context.root.source === "flag" || context.root.source === "env"
    ? ` --root ${JSON.stringify(context.root.dir)}`
    : "";
  return `gateway${root} approve ${pending.runId}`;
}

/** Prints a line on stderr for each held call of this client's runs; returns the unsubscribe. */
export function printApprovalNotices(
  client: { onNotification(listener: (n: ServerNotification) => void): () => void },
  context: Pick<CliContext, "root" | "output">,
): () => void {
  const seen = new Set<string>();
  return client.onNotification((n) => {
    if (n.method !== "run.approval") return;
    const pending = n.params as PendingApproval;
    if (seen.has(pending.id)) return;
    seen.add(pending.id);
    const command = approveCommandLine(pending, context);
    context.output.err(
      `waiting for approval: ${pending.namespace}.${pending.tool}(${pending.args}) held by policy ${pending.rule}: ${command} (or ${command} --deny)\n`,
    );
  });
}
