/**
 * A GraphQL endpoint as a gateway namespace: its schema read by introspection, one tool per
 * query and mutation field, calls sent by the gateway as one operation each.
 * @module
 */

import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from "graphql";
import type { ApiConfig } from "../../config/gateway_config.ts";
import {
  type PreparedCall,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
} from "../namespace.ts";
import { ApiNamespace, type LoadedApi } from "../kind_support/api_namespace.ts";
import { readCapped } from "../kind_support/read_capped.ts";
import { checkedToolInput } from "../kind_support/input_validator.ts";
import { buildGraphqlCatalogue, type GraphqlOperation } from "./build_graphql_catalogue.ts";
import { graphqlDocument } from "./graphql_document.ts";
import { messageOf } from "../../protocol/message_of.ts";
import { fetchFailureText } from "../kind_support/fetch_failure.ts";

const MAX_ERROR_TEXT = 2_000;
const INTROSPECTION_TIMEOUT_MS = 30_000;

/**
 * One `apis` entry with `graphql` as a {@linkcode Namespace}. `start()` introspects the
 * endpoint; a call validates its arguments, sends `query`/`mutation` with variables, and
 * resolves to the field's data, or rejects with `ToolError` carrying the GraphQL errors.
 */
export class GraphqlNamespace extends ApiNamespace<GraphqlOperation> {
  /** Always "graphql". */
  readonly kind = "graphql" as const;
  readonly #config: ApiConfig;
  readonly #endpoint: string;

  /** `options.logger` hears of change listeners that throw. @default console */
  constructor(
    name: string,
    config: ApiConfig,
    options: { logger?: { error(message: string): void } } = {},
  ) {
    super(name, { disabled: config.disabled, logger: options.logger });
    this.#config = config;
    this.#endpoint = config.baseUrl ?? config.graphql ?? "";
  }

  /**
   * Builds the call of root field `tool` with `args` (its arguments, plus `$select` for a
   * selection set): the arguments checked against the field's, `$select` parsed and validated
   * as one selection set on the field's type, and the document printed from its syntax tree.
   * The request names every root field of that document by its tool, for the policy gate.
   */
  prepare(tool: string, args: unknown): PreparedCall {
    const operation = this.operation(tool);
    const input = checkedToolInput(
      args,
      () => this.checkFor(tool, (validator) => validator.compile(operation.inputSchema)),
      `${this.name}.${tool}`,
    );
    const what = `"${this.name}.${tool}" (GraphQL ${operation.operation} ${operation.field.name})`;
    const { query, variables, rootFields } = graphqlDocument(
      operation.schema,
      operation,
      input,
      what,
    );
    const tools = rootFields.map(({ operation: kind, field }) =>
      kind === operation.operation && field === operation.field.name
        ? tool
        : this.#toolOf(kind, field) ?? `${kind}:${field}`
    );
    return {
      request: {
        tools,
        args: variables,
        summary: `${operation.operation} { ${rootFields.map((r) => r.field).join(" ")} }`,
      },
      send: (options) => this.#send(operation, { query, variables }, what, options),
    };
  }

  async #send(
    operation: GraphqlOperation,
    body: { query: string; variables: Record<string, unknown> },
    what: string,
    options: ToolCallOptions,
  ): Promise<ToolCallResult> {
    const answer = await this.#post(body, what, options);
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

  /** The tool of root field `field` of `kind`, or undefined when it is not one of ours. */
  #toolOf(kind: "query" | "mutation", field: string): string | undefined {
    for (const [name, operation] of this.operations()) {
      if (operation.operation === kind && operation.field.name === field) return name;
    }
    return undefined;
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
      throw new ToolCallError(
        "ToolError",
        `${what} failed: ${fetchFailureText(error, new URL(this.#endpoint))}`,
        { cause: error },
      );
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

  /** Introspects the endpoint and builds one operation per query and mutation field. */
  protected async load(): Promise<LoadedApi<GraphqlOperation>> {
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
      const built = buildGraphqlCatalogue(schema, {
        writes: this.#config.writes,
        include: this.#config.include,
        exclude: this.#config.exclude,
      });
      return built;
    } catch (error) {
      throw new Error(
        `Cannot read the GraphQL schema of "${this.#endpoint}": ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
}
