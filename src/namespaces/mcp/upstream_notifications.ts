/**
 * What an MCP upstream sends besides answers: list changes (which refresh the catalogue), log
 * messages and resource updates (relayed to whoever listens), and its questions to the user
 * (`elicitation/create`, handed to the call that caused them). A 2025 server sends list changes
 * when it likes; a 2026-07-28 server only on a `subscriptions/listen` stream, which
 * {@linkcode UpstreamNotifications.listen} opens (and opens again when it drops).
 * @module
 */

import type { LogMethods } from "../../logger.ts";
import type { UpstreamLogMessage } from "../namespace.ts";
import type { CallQuestions } from "./call_questions.ts";
import type { Client } from "./mcp_sdk.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** How long a dropped listen stream waits before it is opened again, doubling to the maximum. */
const RELISTEN_MS = { first: 500, max: 30_000 };

/**
 * The listeners of one namespace's upstream notifications, kept across reconnects: each new
 * client gets the handlers by {@linkcode install}.
 */
export class UpstreamNotifications {
  readonly #name: string;
  readonly #logger: LogMethods;
  readonly #resourceListeners = new Set<(uri: string) => void>();
  readonly #logListeners = new Set<(message: UpstreamLogMessage) => void>();
  /** The log watchers of host rounds in flight (see {@linkcode watchLogs}). */
  readonly #callLogWatchers = new Set<(message: UpstreamLogMessage) => void>();
  /** Resources subscribed to on a 2026-07-28 connection (its listen filter names them). */
  readonly #subscribed = new Set<string>();
  /** Reopens the listen stream of the current modern connection with the current filter. */
  #relisten: (() => void) | null = null;

  constructor(name: string, logger: LogMethods) {
    this.#name = name;
    this.#logger = logger;
  }

  /** Tells `listener` each log message the upstream sends; returns its unsubscribe function. */
  onLogMessage(listener: (message: UpstreamLogMessage) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /**
   * Tells `watcher` each log message the upstream sends while a host round is in flight, until
   * the returned function is called. The upstream names no request in its log messages, so
   * every round in flight hears every message; messages heard so are marked `toCall` for the
   * other listeners.
   */
  watchLogs(watcher: (message: UpstreamLogMessage) => void): () => void {
    this.#callLogWatchers.add(watcher);
    return () => this.#callLogWatchers.delete(watcher);
  }

  /** Tells `listener` the URI of each subscribed resource the upstream says has changed. */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#resourceListeners.add(listener);
    return () => this.#resourceListeners.delete(listener);
  }

  /**
   * Sets `client`'s handlers before it connects: `onListChanged` runs when its tools or prompts
   * change; a question of the server goes to the call `questions` names (none: declined).
   */
  install(client: Client, onListChanged: () => void, questions?: CallQuestions): void {
    const name = this.#name;
    client.onerror = (error) => this.#logger.warn(`MCP server "${name}": ${messageOf(error)}`);
    client.setNotificationHandler("notifications/tools/list_changed", onListChanged);
    client.setNotificationHandler("notifications/prompts/list_changed", onListChanged);
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      for (const listener of this.#resourceListeners) listener(notification.params.uri);
    });
    client.setNotificationHandler("notifications/message", (notification) => {
      const { level, logger, data } = notification.params;
      const message: UpstreamLogMessage = {
        level,
        ...(logger === undefined ? {} : { logger }),
        data,
      };
      for (const watcher of this.#callLogWatchers) watcher(message);
      const relayed: UpstreamLogMessage = this.#callLogWatchers.size === 0
        ? message
        : { ...message, toCall: true };
      for (const listener of this.#logListeners) listener(relayed);
      const text = typeof data === "string" ? data : JSON.stringify(data);
      this.#logger.debug(`[${name}${logger === undefined ? "" : `/${logger}`}] ${level}: ${text}`);
    });
    client.setRequestHandler("elicitation/create", async (request) => {
      const call = questions?.current() ?? "none";
      if (call === "none" || call === "ambiguous" || call.answer === undefined) {
        this.#logger.warn(
          `MCP server "${name}" asked "${request.params.message}" and was declined: ${
            call === "none"
              ? "no call of it is in flight"
              : call === "ambiguous"
              ? "several of its calls are in flight and the question does not say which asks"
              : "the call is not from a run, so nobody can be asked"
          }`,
        );
        return { action: "decline" };
      }
      const responses = await call.answer({ question: request });
      return responses.question as { action: "decline" };
    });
  }

  /**
   * On a 2026-07-28 connection: opens the `subscriptions/listen` stream for the list changes
   * the server offers (and the resources subscribed to), and opens it again with back-off when
   * it drops while `client` is `current()`; `onOpened` runs each time a stream is open (the
   * lists may have changed unannounced before). Resolves once the server acknowledged it; a
   * server that refuses is logged, and the namespace works on without change notifications.
   */
  async listen(client: Client, current: () => boolean, onOpened: () => void): Promise<void> {
    const capabilities = client.getServerCapabilities() ?? {};
    let delay = RELISTEN_MS.first;
    let open: { close(): Promise<void> } | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const subscribe = async (): Promise<void> => {
      if (!current()) return;
      const filter = {
        ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
        ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
        ...(capabilities.resources?.subscribe && this.#subscribed.size > 0
          ? { resourceSubscriptions: [...this.#subscribed] }
          : {}),
      };
      if (Object.keys(filter).length === 0) return;
      try {
        const subscription = await client.listen(filter);
        if (!current()) {
          await subscription.close();
          return;
        }
        open = subscription;
        delay = RELISTEN_MS.first;
        // What changed before the stream was open (or while it was down) was not announced.
        onOpened();
        void subscription.closed.then((how) => {
          if (open === subscription) open = null;
          if (how === "local" || !current()) return;
          this.#logger.info(
            `MCP server "${this.#name}" ended its change stream (${how}): opening it again`,
          );
          timer = setTimeout(() => void subscribe(), delay);
          Deno.unrefTimer(timer);
          delay = Math.min(delay * 2, RELISTEN_MS.max);
        });
      } catch (error) {
        if (!current()) return;
        this.#logger.warn(
          `MCP server "${this.#name}" refused a change stream (subscriptions/listen): ${
            messageOf(error)
          }; its tool list is read again only on a reconnect`,
        );
      }
    };
    this.#relisten = () => {
      clearTimeout(timer);
      const previous = open;
      open = null;
      void previous?.close().catch(() => {});
      void subscribe();
    };
    await subscribe();
  }

  /**
   * Subscribes to (or unsubscribes from) `uri` on a 2026-07-28 connection, where the listen
   * stream's filter carries resource subscriptions: the stream is opened again with the new
   * filter.
   */
  setResourceSubscription(uri: string, subscribed: boolean): void {
    if (subscribed) this.#subscribed.add(uri);
    else this.#subscribed.delete(uri);
    this.#relisten?.();
  }
}
