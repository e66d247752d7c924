/**
 * An HTTP API described by an OpenAPI 3.x or Swagger 2.0 document as a gateway namespace: one
 * tool per operation, arguments validated before the gateway (never the script) sends the
 * request.
 * @module
 */

import type { ApiConfig } from "../../config/gateway_config.ts";
import type { PreparedCall } from "../namespace.ts";
import { ApiNamespace, type LoadedApi } from "../kind_support/api_namespace.ts";
import {
  type ArgumentCheck,
  checkedToolInput,
  type InputValidator,
} from "../kind_support/input_validator.ts";
import type { ApiOperation } from "./api_operations.ts";
import { asRecord } from "../kind_support/as_record.ts";
import { type ApiCatalogue, buildApiCatalogue } from "./build_api_catalogue.ts";
import { loadApiDocument } from "./load_api_document.ts";
import { buildApiRequest, sendBuiltRequest } from "./send_api_request.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** Where an OpenAPI namespace finds relative paths and keeps its cache. */
export interface OpenApiNamespaceOptions {
  /** Directory a relative document path resolves against (the gateway root). */
  baseDir: string;
  /** Directory for cached remote documents. */
  cacheDir: string;
  /** Hears of change listeners that throw. @default console */
  logger?: { error(message: string): void };
}

/** Load figures, for `gateway tools` notes and the bench. */
export interface OpenApiLoadStats {
  operations: number;
  included: number;
  filtered: number;
  leftOut: number;
  loadMs: number;
}

/**
 * One `apis` entry with `openapi` as a {@linkcode Namespace}. `start()` loads and renders the
 * document (a failure is the `failed` status with the reason); calls validate their argument
 * object with ajv, then go out as HTTP requests built from the operation.
 *
 * @example
 * ```ts ignore
 * import { OpenApiNamespace } from "./openapi_namespace.ts";
 * const ns = new OpenApiNamespace("petstore", {
 *   openapi: "./petstore.yaml", headers: {}, include: [], exclude: [], writes: "ask",
 *   disabled: false,
 * }, { baseDir: Deno.cwd(), cacheDir: "/tmp/cache" });
 * await ns.start();
 * const { value } = await ns.callTool("listPets", { limit: 2 }, {
 *   signal: new AbortController().signal, callTimeoutMs: 60_000, callMaxMs: 600_000,
 * });
 * ```
 */
export class OpenApiNamespace extends ApiNamespace<ApiOperation> {
  /** Always "openapi". */
  readonly kind = "openapi" as const;
  readonly #config: ApiConfig;
  readonly #options: OpenApiNamespaceOptions;
  #built: ApiCatalogue | undefined;
  #baseUrl = "";
  #stats: OpenApiLoadStats | undefined;

  constructor(name: string, config: ApiConfig, options: OpenApiNamespaceOptions) {
    super(name, { disabled: config.disabled, logger: options.logger });
    this.#config = config;
    this.#options = options;
  }

  /** Figures of the last load (undefined before it). */
  get stats(): OpenApiLoadStats | undefined {
    return this.#stats;
  }

  /**
   * Builds the call of operation `tool`: checks `args` against the operation's parameters and
   * body schema (`InvalidToolInput` naming the path and rule), then builds the one request it
   * sends, its path checked against the operation's template. The request carries the method
   * and path as sent, for the policy gate.
   */
  prepare(tool: string, args: unknown): PreparedCall {
    const operation = this.operation(tool);
    const input = checkedToolInput(
      args,
      () => this.checkFor(tool, (validator) => this.#compileCheck(operation, validator)),
      `${this.name}.${tool}`,
    );
    const target = { namespace: this.name, baseUrl: this.#baseUrl, headers: this.#config.headers };
    const request = buildApiRequest(target, operation, input, this.#built!.security.get(tool));
    return {
      request: {
        tools: [tool],
        args: input,
        summary: `${request.method} ${request.url.pathname}`,
      },
      send: (options) => sendBuiltRequest(target, request, options),
    };
  }

  /** Compiles the argument check of an operation (its parameters and body as one object). */
  #compileCheck(operation: ApiOperation, validator: InputValidator): ArgumentCheck {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const parameter of operation.parameters) {
      properties[parameter.key] = parameter.schema ?? {};
      if (parameter.required) required.push(parameter.key);
    }
    if (operation.body !== undefined) {
      properties[operation.body.key] = operation.body.schema ?? {};
      if (operation.body.required) required.push(operation.body.key);
    }
    const schema = this.#built!.schemas.toJsonSchema(
      { type: "object", properties, required, additionalProperties: false },
      operation.name,
    );
    try {
      return validator.compile(schema);
    } catch (error) {
      // A schema ajv cannot compile leaves the call unchecked; the API still judges it.
      const reason = messageOf(error);
      this.addWarning(
        `loosened ${operation.name}: arguments are not checked before sending (${reason})`,
      );
      return () => [];
    }
  }

  /** Loads the document and builds one operation per kept path and method. */
  protected async load(): Promise<LoadedApi<ApiOperation>> {
    const started = performance.now();
    const loaded = await loadApiDocument(this.#config.openapi!, this.#options);
    this.#baseUrl = this.#config.baseUrl ?? baseUrlOf(loaded.document, loaded.source);
    const built = buildApiCatalogue(loaded.document, {
      include: this.#config.include,
      exclude: this.#config.exclude,
      writes: this.#config.writes,
      credentials: { namespace: this.name, headers: this.#config.headers, baseUrl: this.#baseUrl },
    });
    this.#built = built;
    const leftOut =
      built.catalogue.warnings.filter((w) =>
        w.startsWith("left out ") && !w.includes('by "include"')
      ).length;
    this.#stats = {
      operations: built.total,
      included: built.operations.size,
      filtered: built.filtered,
      leftOut,
      loadMs: performance.now() - started,
    };
    return {
      catalogue: {
        ...built.catalogue,
        warnings: [...loaded.warnings, ...built.catalogue.warnings],
      },
      operations: built.operations,
    };
  }
}

/**
 * The base URL a document declares: OpenAPI 3 `servers[0]` (variables at their defaults,
 * relative to a remote document's URL) or Swagger `schemes`/`host`/`basePath`. Throws when it
 * declares none that can be used.
 */
export function baseUrlOf(document: Record<string, unknown>, source: string): string {
  const remote = /^https?:\/\//i.test(source);
  if (document.swagger === "2.0") {
    const host = typeof document.host === "string" ? document.host : undefined;
    const schemes = Array.isArray(document.schemes) ? document.schemes : [];
    const basePath = typeof document.basePath === "string" ? document.basePath : "";
    if (host !== undefined) {
      const scheme = schemes.includes("https") ? "https" : String(schemes[0] ?? "https");
      return `${scheme}://${host}${basePath}`;
    }
    if (remote) return new URL(basePath || "/", source).href;
  } else {
    const server = asRecord(Array.isArray(document.servers) ? document.servers[0] : undefined);
    if (server !== undefined && typeof server.url === "string") {
      const variables = asRecord(server.variables) ?? {};
      const url = server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
        const value = asRecord(variables[name])?.default;
        return typeof value === "string" ? value : match;
      });
      if (/^https?:\/\//i.test(url)) return url;
      if (remote) return new URL(url, source).href;
    }
  }
  throw new Error(
    `API document "${source}" declares no absolute server URL: set "baseUrl" in its "apis" entry`,
  );
}
