/**
 * Dispatches a method call to its handler after validating params, and translates every
 * error into the one wire error by its class (docs/protocol.md#errors), in this one place.
 * Domain code throws domain errors; only this file knows the wire codes they map to.
 * @module
 */

import type { z } from "zod";
import { describeZodError } from "../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { ToolCallError } from "../namespaces/namespace.ts";
import { InvalidArgumentError } from "../protocol/invalid_argument_error.ts";
import { ScriptNameError } from "../exec/named_scripts.ts";
import { WorkflowError, type WorkflowErrorCode } from "../workflows/workflow_error.ts";
import { GatewayRefusal } from "./gateway_refusal.ts";
import type { Logger } from "../logger.ts";
import { messageOf } from "../protocol/message_of.ts";

/** What a handler knows about the caller. */
export interface CallerContext {
  /** "ws", "http", "mcp", "cli" … stored in history. */
  client: string;
  /** Sends a notification to this caller (WebSocket only). */
  notify?: (method: string, params: unknown) => void;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

/**
 * What a handler receives besides its params: the caller, and the parts of the gateway its
 * method group declares (`P`, e.g. `{ history, registry }`), never the gateway core whole.
 */
export type MethodContext<P = Record<never, never>> = CallerContext & P;

/** One method: its params schema and handler, type-erased for the table. */
export interface MethodDefinition<P = Record<never, never>> {
  /** The params schema, also the source of the HTTP API's OpenAPI document. */
  readonly schema: z.ZodType;
  parse(params: unknown): { success: true; data: unknown } | { success: false; error: z.ZodError };
  /** A property, not a method: a table needing parts the router lacks does not type-check. */
  readonly handle: (params: unknown, context: MethodContext<P>) => Promise<unknown>;
}

/** A method group: its handlers by method name, over the parts `P` it declares. */
export type MethodGroup<P> = Record<string, MethodDefinition<P>>;

/**
 * Builds a table entry whose handler receives params typed by the schema; its parts' type
 * comes from the group it is listed in.
 */
export function defineMethod<S extends z.ZodType, P = Record<never, never>>(
  schema: S,
  handle: (params: z.infer<S>, context: MethodContext<P>) => Promise<unknown>,
): MethodDefinition<P> {
  return {
    schema,
    parse: (params) => schema.safeParse(params ?? {}),
    handle: (params, context) => handle(params as z.infer<S>, context),
  };
}

/** The method table plus the error translation. */
export class Router {
  readonly #methods: ReadonlyMap<string, MethodDefinition>;
  readonly #log: Pick<Logger, "error">;

  /**
   * A table whose handlers each work on `parts` (each sees only what its group declares);
   * `log` records the errors that are bugs (answered as internal errors).
   */
  static over<P extends object>(
    methods: Record<string, MethodDefinition<P>>,
    parts: P,
    log: Pick<Logger, "error">,
  ): Router {
    const bound = Object.entries(methods).map(([name, method]): [string, MethodDefinition] => [
      name,
      {
        schema: method.schema,
        parse: (params) => method.parse(params),
        handle: (params, caller) => method.handle(params, { ...parts, ...caller }),
      },
    ]);
    return new Router(Object.fromEntries(bound), log);
  }

  /** A table of handlers that need nothing but the caller; `log` as for {@linkcode Router.over}. */
  constructor(methods: Record<string, MethodDefinition>, log: Pick<Logger, "error">) {
    this.#methods = new Map(Object.entries(methods));
    this.#log = log;
  }

  /** Whether `method` exists (notifications with unknown methods are ignored). */
  has(method: string): boolean {
    return this.#methods.has(method);
  }

  /** The params schema of `method`, or undefined when there is no such method. */
  schemaOf(method: string): z.ZodType | undefined {
    return this.#methods.get(method)?.schema;
  }

  /** Method names, for errors and discovery. */
  names(): string[] {
    return [...this.#methods.keys()].sort();
  }

  /** Validates and runs a method. Rejects only with {@linkcode RpcError}. */
  async dispatch(method: string, params: unknown, caller: CallerContext): Promise<unknown> {
    const definition = this.#methods.get(method);
    if (!definition) {
      throw new RpcError(
        RpcCode.MethodNotFound,
        `Method not found: "${method}" (methods: ${this.names().join(", ")})`,
      );
    }
    const parsed = definition.parse(params);
    if (!parsed.success) {
      throw new RpcError(
        RpcCode.InvalidParams,
        `Invalid params for "${method}": ${describeZodError(parsed.error)}`,
      );
    }
    try {
      return await definition.handle(parsed.data, caller);
    } catch (error) {
      throw toRpcError(error, this.#log);
    }
  }
}

/** Workflow codes that mean the caller's input is wrong (exit 2); the rest refuse a state. */
const WORKFLOW_INPUT_CODES: ReadonlySet<WorkflowErrorCode> = new Set([
  "BadFile",
  "BadTemplate",
  "BadArgument",
  "NotFound",
]);

/**
 * The one translation from domain errors to wire errors, by class. Anything else is a bug:
 * logged with its stack and answered as an internal error (-32603), never as the caller's
 * mistake, and never a crash.
 */
export function toRpcError(error: unknown, log: Pick<Logger, "error">): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ToolCallError) {
    return new RpcError(RpcCode.GatewayError, error.message, { kind: error.kind });
  }
  if (error instanceof WorkflowError) {
    // Its code is the `kind` (the CLI prints `error[BadFile]: …`), with the file location.
    return new RpcError(
      WORKFLOW_INPUT_CODES.has(error.code) ? RpcCode.InvalidParams : RpcCode.GatewayError,
      error.message,
      error.location === null
        ? { kind: error.code }
        : { kind: error.code, location: { ...error.location } },
    );
  }
  if (error instanceof GatewayRefusal) {
    return new RpcError(
      error.kind === "ShuttingDown" ? RpcCode.ShuttingDown : RpcCode.Overloaded,
      error.message,
      {
        kind: error.kind,
        ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      },
    );
  }
  if (error instanceof InvalidArgumentError || error instanceof ScriptNameError) {
    return new RpcError(RpcCode.InvalidParams, error.message, { kind: error.name });
  }
  log.error("internal error while handling a request", {
    error: String(error),
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  });
  return new RpcError(
    RpcCode.InternalError,
    `Internal error: ${messageOf(error)}`,
  );
}
