/**
 * The change listeners of one namespace: `onChange` subscriptions, told in turn, where one that
 * throws is logged and can neither stop the others nor fail the load or call that changed it.
 * @module
 */
import { messageOf } from "../protocol/message_of.ts";

/** Listeners of one namespace's status and catalogue changes. */
export class ChangeListeners {
  readonly #namespace: string;
  readonly #logger: { error(message: string): void };
  readonly #listeners = new Set<() => void>();

  /** `logger` hears of listeners that throw, naming `namespace`. */
  constructor(namespace: string, logger: { error(message: string): void }) {
    this.#namespace = namespace;
    this.#logger = logger;
  }

  /** Adds `listener`; returns its unsubscribe function (what `Namespace.onChange` returns). */
  add(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener subscribed now, in subscription order. */
  notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        const message = messageOf(error);
        this.#logger.error(`A change listener of "${this.#namespace}" threw: ${message}`);
      }
    }
  }
}
