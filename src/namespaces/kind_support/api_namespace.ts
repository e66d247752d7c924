/**
 * What the HTTP API namespaces (OpenAPI, GraphQL) share: the load-once lifecycle, status
 * snapshots, change listeners, and the checks every call makes before its own request.
 * @module
 */

import {
  type Namespace,
  type NamespaceCatalogue,
  type NamespaceStatus,
  NO_CAPABILITIES,
  type PreparedCall,
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
} from "../namespace.ts";
import { describeStatus } from "../../protocol/catalogue.ts";
import { unknownToolError } from "../unknown_tool_error.ts";
import { ChangeListeners } from "../change_listeners.ts";
import { type ArgumentCheck, InputValidator } from "./input_validator.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** What one load of an API gives: the catalogue scripts see and the operations by tool name. */
export interface LoadedApi<Operation> {
  catalogue: NamespaceCatalogue;
  operations: ReadonlyMap<string, Operation>;
}

/**
 * An `apis` entry as a {@linkcode Namespace}: `start()` runs {@linkcode load} once (a throw is
 * the `failed` status with its message), `stop()` only marks it stopped since nothing runs
 * between calls. Subclasses load the description and send the calls.
 */
export abstract class ApiNamespace<Operation> implements Namespace {
  /** The `apis` key. */
  readonly name: string;
  /** "openapi" or "graphql". */
  abstract readonly kind: "openapi" | "graphql";
  /** None of the optional ones. */
  readonly capabilities = NO_CAPABILITIES;
  readonly #disabled: boolean;
  readonly #listeners: ChangeListeners;
  readonly #validator = new InputValidator();
  readonly #checks = new Map<string, ArgumentCheck>();
  #status: NamespaceStatus = { state: "starting" };
  #catalogue: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };
  #operations: ReadonlyMap<string, Operation> | undefined;
  #loading: Promise<void> | undefined;

  /** `logger` hears of change listeners that throw. @default console */
  constructor(
    name: string,
    options: { disabled: boolean; logger?: { error(message: string): void } | undefined },
  ) {
    this.name = name;
    this.#disabled = options.disabled;
    this.#listeners = new ChangeListeners(name, options.logger ?? console);
    if (options.disabled) this.#status = { state: "disabled" };
  }

  /** A copy of the current status: later changes never alter what a caller holds. */
  status(): NamespaceStatus {
    return { ...this.#status };
  }

  /** One tool per kept operation; warnings list what was left out or loosened, and why. */
  catalogue(): NamespaceCatalogue {
    return this.#catalogue;
  }

  /** Loads the API description; resolves ready or failed, never rejects. */
  start(): Promise<void> {
    if (this.#disabled) return Promise.resolve();
    this.#loading ??= this.#load();
    return this.#loading;
  }

  /** Nothing runs between calls; marks the namespace stopped. Idempotent. */
  stop(): Promise<void> {
    if (this.#status.state !== "disabled") this.#setStatus({ state: "failed", reason: "stopped" });
    this.#loading = undefined;
    return Promise.resolve();
  }

  /** Registers `listener` for status and catalogue changes; returns its unsubscribe function. */
  onChange(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * Checks `args` and builds the one HTTP request a call of `tool` sends (see the subclass),
   * so the policy gate judges what goes out. Throws `ToolCallError`.
   */
  abstract prepare(tool: string, args: unknown): PreparedCall;

  /** Builds the request (see {@linkcode prepare}) and sends it. */
  callTool(tool: string, args: unknown, options: ToolCallOptions): Promise<ToolCallResult> {
    let prepared: PreparedCall;
    try {
      prepared = this.prepare(tool, args);
    } catch (error) {
      return Promise.reject(error);
    }
    return prepared.send(options);
  }

  /** Reads and builds the API description; throws an `Error` whose message is the reason. */
  protected abstract load(): Promise<LoadedApi<Operation>>;

  /**
   * The operation behind tool `tool` of a ready namespace. Throws `NamespaceUnavailable` with
   * the status, or `UnknownTool` naming the nearest tools.
   */
  protected operation(tool: string): Operation {
    const operations = this.#operations;
    if (this.#status.state !== "ready" || operations === undefined) {
      throw new ToolCallError(
        "NamespaceUnavailable",
        `API "${this.name}" is ${describeStatus(this.#status)}`,
      );
    }
    const operation = operations.get(tool);
    if (operation === undefined) throw unknownToolError(this.name, tool, [...operations.keys()]);
    return operation;
  }

  /** The operations of the current load by tool name (none before the first load). */
  protected operations(): ReadonlyMap<string, Operation> {
    return this.#operations ?? new Map();
  }

  /** Adds a catalogue warning found after the load (e.g. a schema ajv cannot compile). */
  protected addWarning(warning: string): void {
    this.#catalogue = { ...this.#catalogue, warnings: [...this.#catalogue.warnings, warning] };
    this.#listeners.notify();
  }

  /**
   * The argument check of tool `tool`, built by `build` on its first call and kept until the
   * next load.
   */
  protected checkFor(
    tool: string,
    build: (validator: InputValidator) => ArgumentCheck,
  ): ArgumentCheck {
    let check = this.#checks.get(tool);
    if (check === undefined) {
      check = build(this.#validator);
      this.#checks.set(tool, check);
    }
    return check;
  }

  async #load(): Promise<void> {
    try {
      const loaded = await this.load();
      this.#checks.clear();
      this.#operations = loaded.operations;
      this.#catalogue = loaded.catalogue;
      this.#setStatus({ state: "ready" });
    } catch (error) {
      this.#setStatus({
        state: "failed",
        reason: messageOf(error),
      });
    }
  }

  #setStatus(status: NamespaceStatus): void {
    this.#status = status;
    this.#listeners.notify();
  }
}
