/**
 * The gateway refusing a run for a reason of its own state (shutting down, queue full): a
 * domain error the router turns into its wire code, so the core never builds wire errors.
 * @module
 */

/** Why the gateway takes no new run now. */
export type RefusalKind = "ShuttingDown" | "Overloaded";

/** A run the gateway refuses for now; `retryAfterMs` says when trying again makes sense. */
export class GatewayRefusal extends Error {
  /** Which refusal this is. */
  readonly kind: RefusalKind;
  /** How long a caller should wait before retrying, when the gateway knows. */
  readonly retryAfterMs: number | undefined;

  constructor(kind: RefusalKind, message: string, options: { retryAfterMs?: number } = {}) {
    super(message);
    this.name = "GatewayRefusal";
    this.kind = kind;
    this.retryAfterMs = options.retryAfterMs;
  }
}
