/**
 * Dispatches a method call to its handler after validating params, and translates every
 * error into the one wire error (SPEC §11; STYLE rule 6: translated in one place).
 * @module
 */

import type { z } from "zod";
import { describeZodError } from "../protocol/rpc_params.ts";
import { RpcCode, RpcError } from "../protocol/json_rpc.ts";
import { ToolCallError } from "../namespaces/namespace.ts";
import type { GatewayCore } from "./gateway_core.ts";

/** What a handler knows about the caller. */
export interface MethodContext {
  core: GatewayCore;
  /** "ws", "http", "mcp", "cli" … stored in history. */
  client: string;
  /** Sends a notification to this caller (WebSocket only). */
  notify?: (method: string, params: unknown) => void;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

/** One method: its params schema and handler, type-erased for the table. */
export interface MethodDefinition {
  /** The params schema, also the source of the HTTP API's OpenAPI document. */
  readonly schema: z.ZodType;
  parse(params: unknown): { success: true; data: unknown } | { success: false; error: z.ZodError };
  handle(params: unknown, context: MethodContext): Promise<unknown>;
}

/** Builds a table entry whose handler receives params typed by the schema. */
export function defineMethod<S extends z.ZodType>(
  schema: S,
  handle: (params: z.infer<S>, context: MethodContext) => Promise<unknown>,
): MethodDefinition {
  return {
    schema,
    parse: (params) => schema.safeParse(params ?? {}),
    handle: (params, context) => handle(params as z.infer<S>, context),
  };
}

/** The method table plus the error translation. */
export class Router {
  readonly #methods: ReadonlyMap<string, MethodDefinition>;

  constructor(methods: Record<string, MethodDefinition>) {
    this.#methods = new Map(Object.entries(methods));
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
  async dispatch(method: string, params: unknown, context: MethodContext): Promise<unknown> {
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
      return await definition.handle(parsed.data, context);
    } catch (error) {
      throw toRpcError(error, context);
    }
  }
}

/** Whether an error is a caller's mistake that handlers signal with a plain built-in class. */
function isUsageError(error: unknown): error is Error {
  return error instanceof Error &&
    ["ScriptNameError", "WorkflowError", "RangeError", "TypeError"].includes(error.name);
}

/** The one translation from local errors to wire errors. */
export function toRpcError(error: unknown, context: Pick<MethodContext, "core">): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ToolCallError) {
    return new RpcError(RpcCode.GatewayError, error.message, { kind: error.kind });
  }
  if (isUsageError(error)) {
    return new RpcError(RpcCode.InvalidParams, error.message, { kind: error.name });
  }
  context.core.log.error("internal error while handling a request", { error: String(error) });
  return new RpcError(
    RpcCode.InternalError,
    `Internal error: ${error instanceof Error ? error.message : String(error)}`,
  );
}
