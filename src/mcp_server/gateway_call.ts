/**
 * The one seam between the gateway's MCP server and the gateway: a method call (the router
 * in-process for `/mcp`, a WebSocket client for `gateway mcp`) plus the notifications the
 * gateway sends while it runs (`run.output`, `run.progress`, `upstream.progress`).
 * @module
 */

/** Receives a call's notifications and says whether anyone wants run output. */
export interface NotificationSink {
  /** True when the MCP client asked for progress or log messages, so output is worth sending. */
  wantsOutput(): boolean;
  notify(method: string, params: unknown): void;
  /** Aborted when the MCP client cancels the request (`notifications/cancelled`). */
  signal?: AbortSignal;
}

/**
 * The gateway methods whose notifications (a run's output, progress, held calls) stream to the
 * sink of the call that made them; a serving entry gives each such call its own channel.
 */
export const STREAMING_METHODS: ReadonlySet<string> = new Set([
  "exec",
  "run",
  "wait",
  "upstream.call",
]);

/** Calls a gateway method; notifications sent while it runs go to `sink`. */
export type GatewayCall = (
  method: string,
  params: Record<string, unknown>,
  sink?: NotificationSink,
) => Promise<unknown>;

/**
 * Subscribes to the gateway's pushed events (`event.namespaces`, `event.resource.updated` …);
 * returns the unsubscribe function. The MCP server turns them into list-changed and
 * resource-updated notifications.
 */
export type GatewayEvents = (listener: (method: string, params: unknown) => void) => () => void;
