/**
 * A GraphQL endpoint as a gateway namespace: its schema read by introspection, one tool per
 * query and mutation field, calls sent by the gateway as one operation each.
 * @module
 */

import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from "graphql";
import type { ApiConfig } from "../../config/gateway_config.ts";
import {
  type Namespace,
  type NamespaceCatalogue,
  type NamespaceStatus,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
} from "../namespace.ts";
import { nearestNames } from "../../protocol/names.ts";
import { describeStatus } from "../../protocol/catalogue.ts";
import { readCapped } from "../openapi/send_api_request.ts";
import { type ArgumentCheck, InputValidator } from "../mcp/input_validator.ts";
import {
  buildGraphqlCatalogue,
  type GraphqlCatalogue,
  type GraphqlOperation,
  SELECT_KEY,
} from "./build_graphql_catalogue.ts";

const MAX_ERROR_TEXT = 2_000;
const INTROSPECTION_TIMEOUT_MS = 30_000;

/**
 * One `apis` entry with `graphql` as a {@linkcode Namespace}. `start()` introspects the
 * endpoint; a call validates its arguments, sends `query`/`mutation` with variables, and
 * resolves to the field's data, or rejects with `ToolError` carrying the GraphQL errors.
 */
export class GraphqlNamespace implements Namespace {
  /** The `apis` key. */
  readonly name: string;
  /** Always "graphql". */
  readonly kind = "graphql" as const;
  readonly #config: ApiConfig;
  readonly #endpoint: string;
  readonly #listeners = new Set<() => void>();
  readonly #validator = new InputValidator();
  readonly #checks = new Map<string, ArgumentCheck>();
  #status: NamespaceStatus = { state: "starting" };
  #built: GraphqlCatalogue | undefined;
  #catalogue: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };
  #loading: Promise<void> | undefined;

  constructor(name: string, config: ApiConfig) {
    this.name = name;
    this.#config = config;
    this.#endpoint = config.baseUrl ?? config.graphql ?? "";
    if (config.disabled) this.#status = { state: "disabled" };
  }

  /** Current status. */
  status(): NamespaceStatus {
    return { ...this.#status };
  }

  /** One tool per query and mutation field. */
  catalogue(): NamespaceCatalogue {
    return this.#catalogue;
  }

  /** Introspects the endpoint; resolves ready or failed, never rejects. */
  start(): Promise<void> {
    if (this.#config.disabled) return Promise.resolve();
    this.#loading ??= this.#load();
    return this.#loading;
  }

  /** Nothing runs between calls; marks the namespace stopped. */
  stop(): Promise<void> {
    if (this.#status.state !== "disabled") this.#setStatus({ state: "failed", reason: "stopped" });
    this.#loading = undefined;
    return Promise.resolve();
  }

  /** Registers `listener` for status and catalogue changes; returns its unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls root field `tool` with `args` (its arguments, plus `$select` for a selection set). */
  async callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    if (this.#status.state !== "ready" || this.#built === undefined) {
      throw new ToolCallError(
        "NamespaceUnavailable",
        `API "${this.name}" is ${describeStatus(this.#status)}`,
      );
    }
    const operation = this.#built.operations.get(tool);
    if (operation === undefined) {
      const near = nearestNames(tool, [...this.#built.operations.keys()]);
      throw new ToolCallError(
        "UnknownTool",
        `Unknown field "${this.name}.${tool}"${
          near.length > 0 ? `: nearest are ${near.map((n) => `"${n}"`).join(", ")}` : ""
        }`,
      );
    }
    const input = (args ?? {}) as Record<string, unknown>;
    let check = this.#checks.get(tool);
    if (check === undefined) {
      check = this.#validator.compile(operation.inputSchema);
      this.#checks.set(tool, check);
    }
    const problems = typeof input === "object" && !Array.isArray(input)
      ? check(input)
      : ['"/" must be an object (type)'];
    if (problems.length > 0) {
      throw new ToolCallError(
        "InvalidToolInput",
        `Invalid input for tool "${this.name}.${tool}": ${problems.join("; ")}`,
      );
    }
    const { query, variables } = documentFor(operation, input);
    const what = `"${this.name}.${tool}" (GraphQL ${operation.operation} ${operation.field.name})`;
    const answer = await this.#post({ query, variables }, what, options);
    const errors = Array.isArray(answer.errors) ? answer.errors : [];
    const data = (answer.data as Record<string, unknown> | null | undefined)
      ?.[operation.field.name];
    const raw = {
      content: [{ type: "text", text: JSON.stringify(answer).slice(0, 65_536) }],
      structuredContent: answer,
    };
    if (errors.length > 0) {
      const text = errors.map((e) => typeof e?.message === "string" ? e.message : JSON.stringify(e))
        .join("; ");
      throw new ToolCallError(
        "ToolError",
        `${what} answered with errors: ${text.slice(0, MAX_ERROR_TEXT)}`,
        { raw: { ...raw, isError: true } },
      );
    }
    return { value: data ?? null, raw };
  }

  async #post(
    body: { query: string; variables?: Record<string, unknown> },
    what: string,
    options: ToolCallOptions,
  ): Promise<{ data?: unknown; errors?: Array<{ message?: unknown }> }> {
    if (options.signal.aborted) {
      throw new ToolCallError("Cancelled", `Call to ${what} was cancelled`);
    }
    const timeoutMs = Math.min(options.callTimeoutMs, options.callMaxMs);
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#endpoint, {
        method: "POST",
        headers: {
          ...this.#config.headers,
          "content-type": "application/json",
          accept: "application/graphql-response+json, application/json",
        },
        body: JSON.stringify(body),
        redirect: "error",
        signal: AbortSignal.any([options.signal, timeout]),
      });
      text = new TextDecoder().decode(await readCapped(response, what));
    } catch (error) {
      if (error instanceof ToolCallError) throw error;
      if (options.signal.aborted) {
        throw new ToolCallError("Cancelled", `Call to ${what} was cancelled`, { cause: error });
      }
      if (timeout.aborted) {
        throw new ToolCallError(
          "ToolTimeout",
          `${what} timed out: no answer within ${timeoutMs} ms`,
          {
            cause: error,
          },
        );
      }
      throw new ToolCallError("ToolError", `${what} failed: ${messageOf(error)}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const isAnswer = typeof parsed === "object" && parsed !== null &&
      ("data" in parsed || "errors" in parsed);
    if (!isAnswer || (!response.ok && !(parsed as { data?: unknown }).data)) {
      const detail = isAnswer
        ? ((parsed as { errors?: Array<{ message?: unknown }> }).errors ?? []).map((e) =>
          String(e.message)
        ).join("; ")
        : text.trim();
      throw new ToolCallError(
        "ToolError",
        `${what} answered ${response.status}${
          response.statusText ? ` ${response.statusText}` : ""
        }: ${(detail || "(empty body)").slice(0, MAX_ERROR_TEXT)}`,
        {
          raw: {
            content: [{ type: "text", text: text.slice(0, 65_536) }],
            isError: true,
            status: response.status,
          },
        },
      );
    }
    return parsed as { data?: unknown; errors?: Array<{ message?: unknown }> };
  }

  async #load(): Promise<void> {
    try {
      const answer = await this.#post(
        { query: getIntrospectionQuery() },
        `introspection of "${this.#endpoint}"`,
        {
          signal: new AbortController().signal,
          callTimeoutMs: INTROSPECTION_TIMEOUT_MS,
          callMaxMs: INTROSPECTION_TIMEOUT_MS,
        },
      );
      if (answer.errors?.length || answer.data === undefined) {
        throw new Error(
          `introspection failed: ${
            (answer.errors ?? []).map((e) => String(e.message)).join("; ") || "no data"
          }`,
        );
      }
      const schema = buildClientSchema(answer.data as IntrospectionQuery);
      this.#built = buildGraphqlCatalogue(schema, {
        writes: this.#config.writes,
        include: this.#config.include,
        exclude: this.#config.exclude,
      });
      this.#checks.clear();
      this.#catalogue = this.#built.catalogue;
      this.#setStatus({ state: "ready" });
    } catch (error) {
      this.#setStatus({
        state: "failed",
        reason: `Cannot read the GraphQL schema of "${this.#endpoint}": ${messageOf(error)}`,
      });
    }
  }

  #setStatus(status: NamespaceStatus): void {
    this.#status = status;
    for (const listener of this.#listeners) listener();
  }
}

/** The operation text and variables for one call of a root field. */
export function documentFor(
  operation: GraphqlOperation,
  args: Record<string, unknown>,
): { query: string; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {};
  const declared: string[] = [];
  const passed: string[] = [];
  for (const arg of operation.field.args) {
    if (args[arg.name] === undefined) continue;
    variables[arg.name] = args[arg.name];
    declared.push(`$${arg.name}: ${String(arg.type)}`);
    passed.push(`${arg.name}: $${arg.name}`);
  }
  const own = typeof args[SELECT_KEY] === "string" ? (args[SELECT_KEY] as string).trim() : "";
  const selection = own === ""
    ? operation.defaultSelection
    : own.startsWith("{")
    ? own
    : `{ ${own} }`;
  const query = `${operation.operation}${
    declared.length ? `(${declared.join(", ")})` : ""
  } { ${operation.field.name}${passed.length ? `(${passed.join(", ")})` : ""} ${selection} }`;
  return { query, variables };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
