/**
 * The notifications an MCP upstream sends besides progress: list changes (which refresh the
 * catalogue), log messages and resource updates (relayed to whoever listens).
 * @module
 */

import type { LogMethods } from "../../logger.ts";
import {
  type Client,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "./mcp_sdk.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** One `notifications/message` an upstream sent. */
export interface UpstreamLogMessage {
  level: string;
  logger?: string;
  data: unknown;
}

/**
 * The listeners of one namespace's upstream notifications, kept across reconnects: each new
 * client gets the handlers by {@linkcode install}.
 */
export class UpstreamNotifications {
  readonly #name: string;
  readonly #logger: LogMethods;
  readonly #resourceListeners = new Set<(uri: string) => void>();
  readonly #logListeners = new Set<(message: UpstreamLogMessage) => void>();

  constructor(name: string, logger: LogMethods) {
    this.#name = name;
    this.#logger = logger;
  }

  /** Tells `listener` each log message the upstream sends; returns its unsubscribe function. */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /** Tells `listener` the URI of each subscribed resource the upstream says has changed. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#resourceListeners.add(listener);
    return () => this.#resourceListeners.delete(listener);
  }

  /** Sets `client`'s handlers; `onListChanged` runs when its tools or prompts change. */
  install(client: Client, onListChanged: () => void): void {
    const name = this.#name;
    client.onerror = (error) => this.#logger.warn(`MCP server "${name}": ${messageOf(error)}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, onListChanged);
    client.setNotificationHandler(PromptListChangedNotificationSchema, onListChanged);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      for (const listener of this.#resourceListeners) listener(notification.params.uri);
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      for (const listener of this.#logListeners) {
        listener({ level, ...(logger === undefined ? {} : { logger }), data });
      }
      const text = typeof data === "string" ? data : JSON.stringify(data);
      this.#logger.debug(`[${name}${logger === undefined ? "" : `/${logger}`}] ${level}: ${text}`);
    });
  }
}
