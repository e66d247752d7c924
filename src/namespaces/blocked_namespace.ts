/**
 * A configured `mcpServers` or `apis` entry that cannot start because it uses a variable the
 * gateway server's environment lacks. It stays a namespace — failed, with the reason and the
 * fix — so `gateway tools` lists it and a script that calls it is told it is configured, why it
 * is not running and what to set, instead of "Unknown namespace".
 * @module
 */

import {
  type Namespace,
  type NamespaceCatalogue,
  type NamespaceKind,
  type NamespaceStatus,
  NO_CAPABILITIES,
  ToolCallError,
  type ToolCallResult,
} from "./namespace.ts";

const EMPTY: NamespaceCatalogue = { tools: [], declarations: "", warnings: [] };

/** A namespace that is configured but blocked; it never starts and every call fails. */
export class BlockedNamespace implements Namespace {
  readonly name: string;
  readonly kind: NamespaceKind;
  /** None: it never runs (not even the MCP ones its kind would have). */
  readonly capabilities = NO_CAPABILITIES;
  /** Why it is not running and the fix, as `gateway tools` shows it. */
  readonly reason: string;

  constructor(name: string, kind: NamespaceKind, reason: string) {
    this.name = name;
    this.kind = kind;
    this.reason = reason;
  }

  status(): NamespaceStatus {
    return { state: "failed", reason: this.reason };
  }

  catalogue(): NamespaceCatalogue {
    return EMPTY;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  callTool(tool: string): Promise<ToolCallResult> {
    return Promise.reject(
      new ToolCallError(
        "NamespaceUnavailable",
        `Namespace "${this.name}" is ${this.reason}; ${this.name}.${tool} cannot be called now`,
      ),
    );
  }

  onChange(): () => void {
    return () => {};
  }
}
