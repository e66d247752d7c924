/**
 * The set of live namespaces: names them (identifiers, collisions, refusals), resolves a
 * script's call to a namespace and tool, and tells listeners when anything changes so types,
 * catalogue and checker follow within a moment.
 * @module
 */

import { type Namespace, ToolCallError, type ToolDescriptor } from "./namespace.ts";
import type { ToolMap } from "../protocol/channel_messages.ts";
import { type CatalogueNamespace, describeStatus } from "../protocol/catalogue.ts";
import { assignIdentifiers, buildToolIdentifiers, nearestNames } from "../protocol/names.ts";
import { unknownToolError } from "./unknown_tool_error.ts";

/**
 * A namespace as the rest of the gateway sees it: status, catalogue, lifecycle, resources, but
 * no way to call a tool. Calls go through the tool dispatcher alone, which holds the
 * registry's {@linkcode NamespaceRegistry.claimCalls} and applies the policy gate first.
 */
export type ListedNamespace = Omit<Namespace, "callTool" | "callValue" | "prepare">;

/** What the one claim of {@linkcode NamespaceRegistry.claimCalls} gives: callable namespaces. */
export type CallableNamespaces = (name: string) => Namespace | undefined;

/** A resolved call target. */
export interface ResolvedTool {
  namespace: ListedNamespace;
  tool: ToolDescriptor;
  /** The namespace as the catalogue names it, so a caller need not look it up again. */
  typed: CatalogueNamespace;
  /** The tool's identifier in scripts (`get_env` for `get-env`). */
  identifier: string;
}

/** Most names (namespaces, and tools per namespace) {@linkcode NamespaceRegistry.resolve} keeps. */
const MAX_REMEMBERED_RESOLUTIONS = 4096;

/** Holds namespaces by configured name; owns starting and stopping them. */
export class NamespaceRegistry {
  readonly #namespaces = new Map<string, Namespace>();
  readonly #unsubscribe = new Map<string, () => void>();
  readonly #listeners = new Set<() => void>();
  #typed: CatalogueNamespace[] | null = null;
  /** Resolutions by namespace and tool name, as of the `typed` list they were made from. */
  readonly #resolved = new Map<string, Map<string, ResolvedTool>>();
  #resolvedFor: CatalogueNamespace[] | null = null;
  /** The tool map, and the `typed` list it was built from. */
  #toolMap: { of: CatalogueNamespace[]; map: ToolMap } | null = null;
  #warnings: string[] = [];
  #changeTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #starting = new Map<string, Promise<void>>();
  #callsClaimed = false;

  /**
   * Hands the namespaces' call methods to one holder, once: the tool dispatcher claims them
   * when it is made, so no other part can reach a tool except through it (and its policy
   * gate). A second claim throws.
   */
  claimCalls(): CallableNamespaces {
    if (this.#callsClaimed) {
      throw new Error(
        "the namespaces' calls are already claimed by the tool dispatcher: call tools through it",
      );
    }
    this.#callsClaimed = true;
    return (name) => this.#namespaces.get(name);
  }

  /** Adds and starts a namespace (start runs in the background; status says where it is). */
  add(namespace: Namespace): Promise<void> {
    this.#namespaces.set(namespace.name, namespace);
    this.#unsubscribe.set(namespace.name, namespace.onChange(() => this.#changed()));
    this.#changed();
    const started = namespace.start().finally(() => {
      if (this.#starting.get(namespace.name) === started) this.#starting.delete(namespace.name);
    });
    this.#starting.set(namespace.name, started);
    return started;
  }

  /**
   * Resolves when no namespace is still in its first start, or after `timeoutMs`; a run waits
   * on this so a fresh server does not check scripts against half-loaded types.
   */
  async settled(timeoutMs: number, only?: ReadonlySet<string>): Promise<void> {
    const waiting = [...this.#starting].filter(([name]) => !only || only.has(name));
    if (waiting.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(waiting.map(([, started]) => started)),
      new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /** Whether a change is waiting to be announced (listeners run after a short debounce). */
  get changePending(): boolean {
    return this.#changeTimer !== null;
  }

  /** Stops and removes a namespace. */
  async remove(name: string): Promise<void> {
    const namespace = this.#namespaces.get(name);
    if (!namespace) return;
    this.#namespaces.delete(name);
    this.#unsubscribe.get(name)?.();
    this.#unsubscribe.delete(name);
    this.#changed();
    await namespace.stop();
  }

  /** The namespace configured under `name`, if any (calls go through the tool dispatcher). */
  get(name: string): ListedNamespace | undefined {
    return this.#namespaces.get(name);
  }

  /** All namespaces, sorted by name. */
  list(): ListedNamespace[] {
    return [...this.#namespaces.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Registers a change listener (debounced 20 ms); returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#typed = null;
    if (this.#changeTimer !== null) return;
    this.#changeTimer = setTimeout(() => {
      this.#changeTimer = null;
      for (const listener of this.#listeners) listener();
    }, 20);
  }

  /** Naming problems found across namespaces (collisions, refused names). */
  warnings(): string[] {
    this.typed();
    return this.#warnings;
  }

  /** Every namespace as the type renderer and discovery see it; cached until a change. */
  typed(): CatalogueNamespace[] {
    if (this.#typed) return this.#typed;
    const warnings: string[] = [];
    const list = this.list();
    const nsNames = assignIdentifiers(list.map((n) => n.name), { what: "namespace" });
    warnings.push(...nsNames.warnings, ...nsNames.refused.map((r) => r.reason));
    const typed: CatalogueNamespace[] = [];
    for (const namespace of list) {
      const identifier = nsNames.identifiers.get(namespace.name);
      if (identifier === undefined) continue;
      const catalogue = namespace.catalogue();
      const toolNames = buildToolIdentifiers(catalogue);
      warnings.push(
        ...catalogue.warnings.map((w) => `${namespace.name}: ${w}`),
        ...toolNames.warnings.map((w) => `${namespace.name}: ${w}`),
        ...toolNames.refused.map((r) => `${namespace.name}: ${r.reason}`),
      );
      typed.push({
        name: namespace.name,
        identifier,
        kind: namespace.kind,
        status: namespace.status(),
        catalogue,
        toolIdentifiers: toolNames.identifiers,
      });
    }
    this.#typed = typed;
    this.#warnings = [...new Set(warnings)];
    return typed;
  }

  /** Identifier maps the runner builds `tools` from. */
  toolMap(): ToolMap {
    // Every run's message carries it: built once per catalogue (`typed()` is kept until a
    // change), the same object until then; callers read it and never change it.
    const typed = this.typed();
    if (this.#toolMap?.of === typed) return this.#toolMap.map;
    const map: ToolMap = {};
    for (const ns of typed) {
      const tools: Record<string, string> = {};
      for (const [original, identifier] of Object.entries(ns.toolIdentifiers)) {
        tools[identifier] = original;
      }
      map[ns.identifier] = { name: ns.name, tools };
    }
    this.#toolMap = { of: typed, map };
    return map;
  }

  /**
   * Finds the target of a call by namespace and tool, each by configured/original name or by
   * identifier. Throws `UnknownTool` with the nearest names.
   */
  resolve(namespaceName: string, toolName: string): ResolvedTool {
    const typed = this.typed();
    // Every call of every run resolves its names: a resolution is remembered until the
    // catalogue changes (a new `typed` list), so a call pays one lookup, not a scan over the
    // namespaces and their tools (thousands of tools in one namespace at scale).
    if (this.#resolvedFor !== typed) {
      this.#resolved.clear();
      this.#resolvedFor = typed;
    }
    let byTool = this.#resolved.get(namespaceName);
    const known = byTool?.get(toolName);
    if (known !== undefined) return known;
    const found = this.#lookUp(typed, namespaceName, toolName);
    if (byTool === undefined) {
      if (this.#resolved.size >= MAX_REMEMBERED_RESOLUTIONS) this.#resolved.clear();
      byTool = new Map();
      this.#resolved.set(namespaceName, byTool);
    }
    if (byTool.size >= MAX_REMEMBERED_RESOLUTIONS) byTool.clear();
    byTool.set(toolName, found);
    return found;
  }

  #lookUp(typed: CatalogueNamespace[], namespaceName: string, toolName: string): ResolvedTool {
    const ns = typed.find((n) => n.name === namespaceName) ??
      typed.find((n) => n.identifier === namespaceName);
    if (!ns) {
      const near = nearestNames(namespaceName, typed.map((n) => n.identifier));
      throw new ToolCallError(
        "UnknownTool",
        `Unknown namespace "${namespaceName}"${
          near.length ? `: did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : ""
        }; the namespaces are: ${
          typed.map((n) => n.identifier).join(", ") || "(none)"
        } (gateway tools lists them)`,
      );
    }
    const namespace = this.#namespaces.get(ns.name)!;
    const ids = ns.toolIdentifiers;
    const tool =
      ns.catalogue.tools.find((t) => t.originalName === toolName && Object.hasOwn(ids, toolName)) ??
        ns.catalogue.tools.find((t) =>
          Object.hasOwn(ids, t.originalName) && ids[t.originalName] === toolName
        );
    if (!tool) {
      const status = ns.status.state === "ready"
        ? ""
        : ` (namespace "${ns.name}" is ${describeStatus(ns.status)})`;
      if (ns.status.state !== "ready" && ns.catalogue.tools.length === 0) {
        const why = ns.status.state === "failed"
          ? `cannot be used: ${ns.status.reason}`
          : `is ${describeStatus(ns.status)}`;
        throw new ToolCallError(
          "NamespaceUnavailable",
          `Namespace "${ns.name}" ${why}; tool "${toolName}" cannot be called now`,
        );
      }
      // The nearest names in this namespace, and the same or near names in the others
      // (`kv.query` → `sqlite.query`), exact matches first.
      const own = nearestNames(toolName, Object.values(ids)).map((n) => `${ns.identifier}.${n}`);
      const elsewhere = typed.filter((other) => other !== ns).flatMap((other) =>
        nearestNames(toolName, Object.values(other.toolIdentifiers), {
          limit: 2,
          maxDistance: 1,
        }).map((n) => `${other.identifier}.${n}`)
      );
      const exact = elsewhere.filter((path) => path.endsWith(`.${toolName}`));
      const near = [...exact, ...own, ...elsewhere.filter((p) => !exact.includes(p))].slice(0, 5);
      throw unknownToolError(ns.identifier, toolName, Object.values(ids), {
        suggestions: near,
        status,
      });
    }
    return { namespace, tool, typed: ns, identifier: ids[tool.originalName]! };
  }

  /** Stops every namespace. */
  async stopAll(): Promise<void> {
    if (this.#changeTimer !== null) clearTimeout(this.#changeTimer);
    this.#changeTimer = null;
    const all = [...this.#namespaces.values()];
    for (const unsubscribe of this.#unsubscribe.values()) unsubscribe();
    this.#unsubscribe.clear();
    this.#namespaces.clear();
    this.#resolvedFor = null;
    this.#toolMap = null;
    await Promise.allSettled(all.map((n) => n.stop()));
  }
}
