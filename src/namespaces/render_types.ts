/**
 * Renders what scripts are type-checked against (SPEC §4): a namespace's types, the ambient globals
 * `.d.ts`, one-line signatures. Past 400 lines because it holds the globals' text and a small
 * scanner of `declarations` (signatures inline short ones; `describe` lists the ones used).
 * @module
 */

import type {
  NamespaceCatalogue,
  NamespaceKind,
  NamespaceStatus,
  ToolDescriptor,
} from "./namespace.ts";
import { FAILURE_KINDS } from "../protocol/run_document.ts";

/** original tool name → script identifier, as a `Map` or a plain record. */
export type ToolIdentifiers = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

/**
 * What the renderer needs to know of a namespace. The discovery snapshot's namespaces have this
 * shape, so the registry hands the same objects to types, catalogue and search.
 */
export interface TypedNamespace {
  /** The configured name (config key or file stem), before sanitising. */
  name: string;
  /** The sanitised identifier used under `tools.`. */
  identifier: string;
  /** "local" for a tool module, "mcp" for an upstream server. */
  kind: NamespaceKind;
  status: NamespaceStatus;
  catalogue: NamespaceCatalogue;
  /** Tools without an entry here are not exposed to scripts (their names were refused). */
  toolIdentifiers: ToolIdentifiers;
}

/** A tool a script can call, with the identifier it is called by. */
export interface ExposedTool {
  tool: ToolDescriptor;
  identifier: string;
}

/** One top-level declaration found in a namespace's `declarations` text. */
export interface DeclarationEntry {
  name: string;
  /** Source text with its leading JSDoc, as written. */
  text: string;
  /**
   * One-line form used in place of the name in signatures (an interface's `{ … }` body, a type
   * alias's right-hand side), or null when it cannot stand alone (generic, `extends`, enum …).
   */
  inline: string | null;
  /** Names of other declarations in the same text that this one refers to. */
  references: string[];
}

/** Declarations of one namespace by name, from {@linkcode parseDeclarations}. */
export type DeclarationIndex = ReadonlyMap<string, DeclarationEntry>;

/** Inline a referenced declaration into a one-line signature only up to this many characters. */
const INLINE_MAX_CHARS = 100;

/** Compares strings by code unit, so every ordering here is the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Looks up the script identifier of a tool, or undefined when the tool is not exposed. */
export function lookupToolIdentifier(ns: TypedNamespace, originalName: string): string | undefined {
  const ids = ns.toolIdentifiers;
  if (ids instanceof Map) return ids.get(originalName);
  const record = ids as Readonly<Record<string, string>>;
  return Object.hasOwn(record, originalName) ? record[originalName] : undefined;
}

/**
 * Lists the tools of a namespace that scripts can call, sorted by original name, so types,
 * catalogue and search agree on what exists and in which order.
 */
export function exposedTools(ns: TypedNamespace): ExposedTool[] {
  const out: ExposedTool[] = [];
  for (const tool of ns.catalogue.tools) {
    const identifier = lookupToolIdentifier(ns, tool.originalName);
    if (identifier !== undefined) out.push({ tool, identifier });
  }
  return out.sort((a, b) => compareText(a.tool.originalName, b.tool.originalName));
}

/** Says where a namespace is in words: `ready`, `starting`, `failed: reason`, `disabled`. */
export function describeStatus(status: NamespaceStatus): string {
  return status.state === "failed" ? `failed: ${status.reason}` : status.state;
}

/** The first non-empty line of a description, trimmed; empty when there is none. */
export function firstLine(text: string): string {
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed !== "") return trimmed;
  }
  return "";
}

/**
 * Formats lines as a JSDoc block at `indent`; `*\/` inside is escaped so upstream text cannot
 * end the comment early. Returns "" for no lines.
 */
export function renderJsDoc(lines: readonly string[], indent = ""): string {
  const safe = lines.flatMap((line) => line.split(/\r?\n/))
    .map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  while (safe.length > 0 && safe[safe.length - 1] === "") safe.pop();
  while (safe.length > 0 && safe[0] === "") safe.shift();
  if (safe.length === 0) return "";
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  const body = safe.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`));
  return `${indent}/**\n${body.join("\n")}\n${indent} */\n`;
}

/** The JSDoc lines of a tool: its description, then `@param args.<name>` per known property. */
export function toolDocLines(tool: ToolDescriptor): string[] {
  const lines = tool.description.trim() === "" ? [] : tool.description.trim().split(/\r?\n/);
  for (const param of tool.params) {
    const doc = firstLine(param.description);
    const optional = param.required ? "" : " (optional)";
    lines.push(`@param args.${param.name}${optional}${doc === "" ? "" : ` ${doc}`}`);
  }
  return lines;
}

/**
 * Makes type text safe to embed in other TypeScript: trimmed, `fallback` when empty, and a
 * newline after a trailing `// comment` so the text that follows is not swallowed by it.
 */
export function embeddableType(text: string | null, fallback = "unknown"): string {
  const trimmed = (text ?? "").trim();
  if (trimmed === "") return fallback;
  const endsInComment = maskSource(trimmed).code.trimEnd().length < trimmed.length;
  return endsInComment ? `${trimmed}\n` : trimmed;
}

/** The type text of a tool's argument as `GatewayTool` takes it (`void` when there is none). */
function inputTypeArgument(tool: ToolDescriptor): string {
  if (tool.inputType === null) return "void";
  const type = embeddableType(tool.inputType);
  return tool.inputOptional ? `(${type}) | void` : type;
}

/**
 * Re-indents the continuation lines of a multi-line type to sit under `indent`, keeping their
 * relative indentation.
 */
function reindent(text: string, options: { indent: string }): string {
  const lines = text.split("\n");
  if (lines.length === 1) return text;
  const rest = lines.slice(1).filter((line) => line.trim() !== "");
  const common = Math.min(...rest.map((line) => line.length - line.trimStart().length));
  const moved = lines.slice(1).map((
    line,
  ) => (line.trim() === "" ? "" : options.indent + line.slice(common)));
  return [lines[0], ...moved].join("\n");
}

function indentLines(text: string, indent: string): string {
  return text.split("\n").map((line) => (line.trim() === "" ? "" : indent + line)).join("\n");
}

/** How a kind reads in docs and guides ("local tool module", "MCP server", …). */
export function namespaceKindLabel(kind: NamespaceKind, short = false): string {
  switch (kind) {
    case "local":
      return short ? "local module" : "local tool module";
    case "mcp":
      return "MCP server";
    case "openapi":
      return "OpenAPI HTTP API";
    case "graphql":
      return "GraphQL API";
  }
}

function renderNamespaceDoc(ns: TypedNamespace, indent: string): string {
  const count = exposedTools(ns).length;
  const kind = namespaceKindLabel(ns.kind);
  const lines = [
    `Namespace "${ns.name}" (${kind}, ${describeStatus(ns.status)}): ${count} tool${
      count === 1 ? "" : "s"
    }.`,
  ];
  if (ns.status.state !== "ready") {
    lines.push("Calls fail with `NamespaceUnavailable` until the namespace is ready.");
  }
  return renderJsDoc(lines, indent);
}

/** The body of one namespace (declarations + its tools interface), indented for nesting. */
function renderNamespaceBody(ns: TypedNamespace, indent: string): string {
  const inner = `${indent}  `;
  const parts: string[] = [];
  const declarations = ns.catalogue.declarations.trim();
  if (declarations !== "") parts.push(indentLines(declarations, inner), "");
  parts.push(
    renderJsDoc([`The tools of namespace "${ns.name}": \`tools.${ns.identifier}\`.`], inner) +
      `${inner}interface GatewayTools {`,
  );
  for (const { tool, identifier } of exposedTools(ns)) {
    const output = embeddableType(tool.outputType);
    const type = reindent(`GatewayTool<${inputTypeArgument(tool)}, ${output}>`, {
      indent: `${inner}  `,
    });
    const doc = toolDocLines(tool);
    parts.push(`${renderJsDoc(doc, `${inner}  `)}${inner}  ${identifier}: ${type};`);
    if (identifier !== tool.originalName) {
      // One declaration per tool: the original name refers to it, so the types stay no larger
      // than the upstream's tools/list.
      parts.push(
        `${inner}  /** Original name of \`tools.${ns.identifier}.${identifier}\`. */\n${inner}  ${
          JSON.stringify(tool.originalName)
        }: GatewayTools[${JSON.stringify(identifier)}];`,
      );
    }
  }
  if (ns.status.state !== "ready" && exposedTools(ns).length === 0) {
    // Its tools are not known yet (starting) or at all (failed): any name passes the check,
    // so the call reaches the gateway and fails as `NamespaceUnavailable` with the reason.
    parts.push(
      `${
        renderJsDoc(["Unknown until the namespace is ready; calls fail with the reason."], inner)
      }${inner}  [tool: string]: GatewayUnavailableTool;`,
    );
  }
  parts.push(`${inner}}`);
  return parts.join("\n");
}

/**
 * Renders one namespace as TypeScript (`gateway tools types NS`): its supporting declarations
 * and a `GatewayTools` interface with one `GatewayTool<In, Out>` member per tool, plus a quoted
 * member under the original name when it differs from the identifier.
 *
 * @example
 * ```ts ignore
 * import { renderNamespaceTypes } from "./render_types.ts";
 * console.log(renderNamespaceTypes(snapshot.namespaces[0]!));
 * // declare namespace kv { interface GatewayTools { get: GatewayTool<{ key: string }, unknown>; } }
 * ```
 */
export function renderNamespaceTypes(ns: TypedNamespace): string {
  // Kept per namespace view: the registry replaces the view on any change, and a large API
  // (a thousand operations) would otherwise cost tens of milliseconds for every `/types/NS`.
  const cached = renderedTypes.get(ns);
  if (cached !== undefined) return cached;
  const text = `${renderNamespaceDoc(ns, "")}declare namespace ${ns.identifier} {\n${
    renderNamespaceBody(ns, "")
  }\n}\n`;
  renderedTypes.set(ns, text);
  return text;
}

/** Rendered text by namespace view (weak: dropped with the view). */
const renderedTypes = new WeakMap<TypedNamespace, string>();

/** Collapses whitespace and drops comments so a type fits on one line. */
export function oneLineType(typeText: string): string {
  return collapse(maskSource(typeText).noComments);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/;\s*\}/g, " }").replace(/\{\s+\}/g, "{}");
}

function inlineType(typeText: string, declarations: DeclarationIndex): string {
  const flat = oneLineType(typeText);
  const entry = /^[A-Za-z_$][\w$]*$/.test(flat) ? declarations.get(flat) : undefined;
  if (entry?.inline != null && entry.inline.length <= INLINE_MAX_CHARS) return entry.inline;
  return flat;
}

/**
 * Renders the one-line call signature of a tool, used by the catalogue and search, e.g.
 * `tools.kv.get(args: { key: string }): Promise<unknown>`. Short declarations the argument or
 * result type names are inlined. Pass `declarations` (from {@linkcode parseDeclarations}) when
 * rendering many tools of one namespace, so the declarations are read once.
 */
export function renderToolSignature(
  ns: TypedNamespace,
  tool: ToolDescriptor,
  options: { declarations?: DeclarationIndex } = {},
): string {
  const declarations = options.declarations ?? parseDeclarations(ns.catalogue.declarations);
  const identifier = lookupToolIdentifier(ns, tool.originalName);
  const member = identifier ?? JSON.stringify(tool.originalName);
  const path = identifier === undefined
    ? `tools.${ns.identifier}[${member}]`
    : `tools.${ns.identifier}.${identifier}`;
  const qualified = (type: string) => qualifyTypeNames(type, ns.identifier, declarations);
  let params = "";
  if (tool.inputType !== null) {
    params = `args${tool.inputOptional ? "?" : ""}: ${
      qualified(inlineType(tool.inputType, declarations))
    }`;
  }
  const output = qualified(inlineType(embeddableType(tool.outputType), declarations));
  return `${path}(${params}): Promise<${output}>`;
}

/**
 * Writes the namespace's declared type names in a one-line type as scripts can name them
 * (`GatewayNamespaces.ns.Name`), so a signature shown alone (catalogue, search) is exact.
 * Property keys, members after `.` and text in strings are left alone.
 */
function qualifyTypeNames(
  typeText: string,
  namespace: string,
  declarations: DeclarationIndex,
): string {
  const { code } = maskSource(typeText);
  let out = "";
  let last = 0;
  for (const match of code.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const name = match[0];
    const at = match.index;
    if (!declarations.has(name)) continue;
    const before = code.slice(0, at).trimEnd().at(-1);
    const after = code.slice(at + name.length).trimStart()[0];
    if (before === "." || after === ":" || after === "?") continue;
    out += `${typeText.slice(last, at)}GatewayNamespaces.${namespace}.${name}`;
    last = at + name.length;
  }
  return out + typeText.slice(last);
}

/**
 * Lists the declarations a tool's types use, directly or through other declarations, in the
 * order they are written, so `describe` can print a tool with everything it refers to.
 */
export function declarationsUsedBy(
  tool: ToolDescriptor,
  declarations: DeclarationIndex,
): DeclarationEntry[] {
  const seen = new Set<string>();
  const pending = identifiersIn(`${tool.inputType ?? ""} ${tool.outputType}`)
    .filter((name) => declarations.has(name));
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const ref of declarations.get(name)?.references ?? []) pending.push(ref);
  }
  return [...declarations.values()].filter((entry) => seen.has(entry.name));
}

function identifiersIn(typeText: string): string[] {
  return [...maskSource(typeText).code.matchAll(/[A-Za-z_$][\w$]*/g)].map((m) => m[0]);
}

// ---------------------------------------------------------------------------------------------
// Script globals

function renderFailureKinds(): string {
  return FAILURE_KINDS.map((kind) => JSON.stringify(kind)).join(" | ");
}

function exampleCall(namespaces: readonly TypedNamespace[]): string | null {
  for (const ns of namespaces) {
    if (ns.status.state !== "ready") continue;
    for (const { tool, identifier } of exposedTools(ns)) {
      if (tool.inputType === null || tool.inputOptional) {
        return `tools.${ns.identifier}.${identifier}`;
      }
    }
  }
  return null;
}

function exampleBlock(lines: readonly string[]): string[] {
  return ["@example", "```ts", ...lines, "```"];
}

function renderToolsGlobal(namespaces: readonly TypedNamespace[]): string {
  const call = exampleCall(namespaces);
  const example = call === null
    ? ['console.log(Object.keys(tools)); // the namespaces, e.g. ["kv", …]']
    : [
      `const value = await ${call}(); // the unwrapped result (SPEC §6)`,
      `const envelope = await ${call}.raw(); // the MCP CallToolResult as sent`,
      "console.log(value, envelope.content.length);",
    ];
  const doc = renderJsDoc([
    "Every namespace's tools, as async functions: `await tools.ns.tool(args)` resolves to the",
    "unwrapped result and throws {@linkcode ToolError} on failure; `tools.ns.tool.raw(args)`",
    'resolves to the untouched envelope. Original names work with brackets: `tools.ns["a-b"]`.',
    "Find tools with `search()`, read one with `describe()`.",
    ...exampleBlock(example),
  ]);
  const members: string[] = [];
  for (const ns of namespaces) {
    const type = `GatewayNamespaces.${ns.identifier}.GatewayTools`;
    const nsDoc = renderNamespaceDoc(ns, "  ");
    members.push(`${nsDoc}  readonly ${ns.identifier}: ${type};`);
    if (ns.identifier !== ns.name) {
      members.push(`${nsDoc}  readonly ${JSON.stringify(ns.name)}: ${type};`);
    }
  }
  return `${doc}declare const tools: {\n${members.join("\n")}\n};\n`;
}

/** The part of the globals that does not depend on the catalogue. */
function renderFixedGlobals(describeExample: string): string {
  const doc = (lines: string[]) => renderJsDoc(lines);
  return [
    `${doc(["One MCP content block: text, image, audio, resource, resource_link …"])}` +
    "interface GatewayContentBlock {\n  type: string;\n  [key: string]: unknown;\n}\n",
    `${doc(["The untouched result envelope of a tool call: an MCP `CallToolResult`."])}` +
    "interface GatewayRawResult {\n  content: GatewayContentBlock[];\n" +
    "  structuredContent?: unknown;\n  isError?: boolean;\n  [key: string]: unknown;\n}\n",
    doc([
      "A tool: call it for the unwrapped result (`structuredContent`, else the joined text,",
      "parsed as JSON when it looks like JSON and no output schema is declared, else the content",
      "blocks); it throws {@linkcode ToolError} on failure. `.raw(args)` gives the envelope.",
      ...exampleBlock([
        "async function first(tool: GatewayTool<void, unknown>): Promise<unknown> {",
        "  const envelope = await tool.raw();",
        "  return envelope.isError ? undefined : await tool();",
        "}",
        "console.log(typeof first);",
      ]),
    ]) +
    "interface GatewayTool<In, Out> {\n  (args: GatewayArgs<In>): Promise<Out>;\n" +
    "  /** The untouched result envelope; does not throw when the tool reports `isError`. */\n" +
    "  raw(args: GatewayArgs<In>): Promise<GatewayRawResult>;\n}\n",
    `${
      doc(["A tool of a namespace that is starting or failed: its calls fail until it is ready."])
    }` +
    "interface GatewayUnavailableTool {\n  (args?: unknown): Promise<unknown>;\n" +
    "  raw(args?: unknown): Promise<GatewayRawResult>;\n}\n",
    doc([
      "A tool's argument: a tool that takes none accepts `()`, `(undefined)` and `({})`, as MCP",
      "sends `{}`.",
    ]) + "type GatewayArgs<In> = [In] extends [void] ? void | Record<string, never> : In;\n",
    `${doc(["What `stdin()` returns: the run's standard input, read whole."])}` +
    "interface GatewayStdin {\n" +
    "  /** The input as text, trimmed. */\n  text(): string;\n" +
    "  /** The input parsed as JSON (typed `any`, like `JSON.parse`); `null` when it is empty,\n" +
    "   * a `SyntaxError` saying so when it is not JSON. */\n" +
    "  json(): any;\n" +
    "  /** Non-empty lines, each trimmed. */\n  lines(): string[];\n" +
    "  /** The bytes as received. */\n  raw(): Uint8Array;\n}\n",
    doc([
      "The run's standard input (`gateway exec` reads the caller's stdin; RPC passes `stdin`).",
      ...exampleBlock([
        "const input = stdin();",
        "const data = input.json() ?? { lines: input.lines() };",
        "console.log(JSON.stringify(data), input.raw().byteLength);",
      ]),
    ]) + "declare function stdin(): GatewayStdin;\n",
    doc([
      "The script's arguments as strings (the same as `Deno.args`).",
      ...exampleBlock(['const [name = "world"] = args;', "console.log(`hello ${name}`);"]),
    ]) + "declare const args: string[];\n",
    `${doc(["Options of `search()`."])}interface GatewaySearchOptions {\n` +
    "  /** Only this namespace (its name or identifier). */\n  namespace?: string;\n" +
    "  /** At most this many results. @default 10 */\n  limit?: number;\n" +
    "  /** Skip this many results (use `next` of the previous answer). @default 0 */\n" +
    "  offset?: number;\n}\n",
    `${doc(["One search hit: a tool or a named script."])}interface GatewaySearchResult {\n` +
    "  /** How a script writes it: `tools.ns.tool`, or the script name. */\n  path: string;\n" +
    '  kind: "tool" | "script";\n' +
    "  /** One-line signature. */\n  signature: string;\n" +
    "  /** First line of the description. */\n  description: string;\n}\n",
    `${doc(["A page of search results."])}interface GatewaySearchAnswer {\n` +
    "  results: GatewaySearchResult[];\n  /** Results in all pages. */\n  total: number;\n" +
    "  /** Offset of the next page, or `null` on the last page. */\n  next: number | null;\n}\n",
    doc([
      "Searches tools and named scripts by words (names, descriptions, parameter names).",
      "An empty query with `namespace` lists that namespace; an exact path looks one item up.",
      ...exampleBlock([
        'const answer = search("list", { limit: 5 });',
        "for (const hit of answer.results) console.log(hit.path, hit.signature);",
        "if (answer.next !== null) console.log(`more: offset ${answer.next}`);",
      ]),
    ]) +
    "declare function search(query: string, options?: GatewaySearchOptions): GatewaySearchAnswer;\n",
    doc([
      "The full declaration of a tool (with its JSDoc and the types it uses) or a named script's",
      "description, examples and parameters. Throws, naming the nearest paths, when unknown.",
      ...exampleBlock([`console.log(describe(${JSON.stringify(describeExample)}));`]),
    ]) + "declare function describe(path: string): string;\n",
    `${doc(["Why a call failed (SPEC §8)."])}type GatewayFailureKind = ${renderFailureKinds()};\n`,
    doc([
      "Thrown by a tool call that failed: the tool answered `isError`, timed out, was refused …",
      ...exampleBlock([
        "function explain(error: unknown): string {",
        "  if (!(error instanceof ToolError)) return String(error);",
        "  return `${error.namespace}.${error.tool} failed (${error.kind}): ${error.message}`;",
        "}",
        'console.log(explain(new Error("plain")));',
      ]),
    ]) +
    "declare class ToolError extends Error {\n" +
    "  /** The namespace as written in the script. */\n  readonly namespace: string;\n" +
    "  /** The tool's name. */\n  readonly tool: string;\n" +
    "  /** The failure kind, e.g. `ToolError`, `ToolTimeout`, `InvalidToolInput`. */\n" +
    "  readonly kind: GatewayFailureKind;\n" +
    "  /** The envelope when the tool answered with `isError`. */\n" +
    "  readonly raw: GatewayRawResult | undefined;\n}\n",
    `${doc(["Media a script can hand to its caller: an MCP block, or bytes with a MIME type."])}` +
    "type GatewayAttachment =\n" +
    '  | { type: "image"; data: string; mimeType: string }\n' +
    '  | { type: "audio"; data: string; mimeType: string }\n' +
    '  | { type: "resource"; resource: { uri: string; [key: string]: unknown } }\n' +
    '  | { type: "resource_link"; uri: string; name: string; mimeType?: string }\n' +
    "  | { data: string | Uint8Array; mimeType: string };\n",
    doc([
      "Passes an image, audio or resource to the caller beside stdout (a content block over MCP).",
      ...exampleBlock([
        'attach({ data: new TextEncoder().encode("a,b\\n1,2\\n"), mimeType: "text/csv" });',
      ]),
    ]) + "declare function attach(block: GatewayAttachment): void;\n",
    `${doc(["An MCP server's resources and resource templates."])}` +
    "interface GatewayResourceListing {\n" +
    "  resources: Array<{ uri: string; name: string; description?: string; mimeType?: string }>;\n" +
    "  templates: Array<\n" +
    "    { uriTemplate: string; name: string; description?: string; mimeType?: string }\n" +
    "  >;\n}\n",
    `${doc(["Contents of a read resource: `text`, or `blob` as bytes."])}` +
    "interface GatewayResourceContents {\n" +
    "  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: Uint8Array }>;\n" +
    "}\n",
    doc([
      "Resources of MCP servers, by namespace name.",
      ...exampleBlock([
        "async function readFirst(namespace: string): Promise<string | undefined> {",
        "  const listing = await resources.list(namespace);",
        "  const first = listing.resources[0];",
        "  if (first === undefined) return undefined;",
        "  const { contents } = await resources.read(namespace, first.uri);",
        "  return contents[0]?.text;",
        "}",
        "console.log(typeof readFirst);",
      ]),
    ]) +
    "declare const resources: {\n" +
    "  /** Lists the resources and resource templates of a namespace. */\n" +
    "  list(namespace: string): Promise<GatewayResourceListing>;\n" +
    "  /** Reads one resource by URI. */\n" +
    "  read(namespace: string, uri: string): Promise<GatewayResourceContents>;\n};\n",
  ].join("\n");
}

/**
 * Renders the whole ambient `.d.ts` a script is type-checked against: `tools` typed from every
 * namespace (one that is starting or failed still appears with what is known), `stdin()`,
 * `args`, `search()`, `describe()`, `ToolError`, `attach()` and `resources`. The text has no
 * imports or exports, so a `/// <reference path>` to it (or a lib entry) makes the globals
 * visible beside Deno's own.
 */
export function renderScriptGlobals(snapshot: { namespaces: readonly TypedNamespace[] }): string {
  const namespaces = [...snapshot.namespaces].sort((a, b) => compareText(a.name, b.name));
  const toolCount = namespaces.reduce((sum, ns) => sum + exposedTools(ns).length, 0);
  const call = exampleCall(namespaces);
  const header = [
    "// Generated by gateway from the live catalogue: the globals every script sees (SPEC §4).",
    `// ${namespaces.length} namespaces, ${toolCount} tools. Do not edit.`,
    "",
  ].join("\n");
  const nested = namespaces.map((ns) =>
    `${renderNamespaceDoc(ns, "  ")}  namespace ${ns.identifier} {\n${
      renderNamespaceBody(ns, "  ")
    }\n  }`
  );
  const container = renderJsDoc(["Types of each namespace, as `GatewayNamespaces.<ns>.<Type>`."]) +
    `declare namespace GatewayNamespaces {\n${nested.join("\n\n")}\n}\n`;
  const describeExample = call ?? "tools.kv.get";
  return [header, renderFixedGlobals(describeExample), container, renderToolsGlobal(namespaces)]
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Declaration scanner

/**
 * Blanks comments (both outputs) and string contents (`code` only) with spaces, keeping every
 * offset and newline, so structure can be scanned without a parser.
 */
function maskSource(source: string): { code: string; noComments: string } {
  const code: string[] = [];
  const noComments: string[] = [];
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  let i = 0;
  let from = 0;
  const flush = (to: number) => {
    const plain = source.slice(from, to);
    code.push(plain);
    noComments.push(plain);
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && (next === "/" || next === "*")) {
      flush(i);
      let end = next === "/" ? source.indexOf("\n", i) : source.indexOf("*/", i + 2);
      end = end < 0 ? source.length : next === "/" ? end : end + 2;
      const blanked = blank(source.slice(i, end));
      code.push(blanked);
      noComments.push(blanked);
      i = from = end;
    } else if (c === '"' || c === "'" || c === "`") {
      flush(i);
      let j = i + 1;
      while (j < source.length && source[j] !== c && (c === "`" || source[j] !== "\n")) {
        j += source[j] === "\\" ? 2 : 1;
      }
      j = Math.min(j, source.length);
      const closed = source[j] === c;
      const end = closed ? j + 1 : j;
      code.push(c + blank(source.slice(i + 1, closed ? j : end)) + (closed ? c : ""));
      noComments.push(source.slice(i, end));
      i = from = end;
    } else {
      i++;
    }
  }
  flush(source.length);
  return { code: code.join(""), noComments: noComments.join("") };
}

const DECLARATION_HEAD =
  /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(const\s+enum|interface|type|enum|class|namespace|module|function|const|let|var)\s+([A-Za-z_$][\w$]*)/;
const STATEMENT_START =
  /^(?:export|declare|interface|type|enum|class|namespace|module|function|const|let|var|abstract)\b/;
const BLOCK_KINDS = new Set(["interface", "enum", "const enum", "class", "namespace", "module"]);

function statementEnd(code: string, at: { start: number; block: boolean }): number {
  const { start, block } = at;
  let depth = 0;
  let opened = false;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === "{" || c === "[" || c === "(") {
      if (c === "{" && depth === 0) opened = true;
      depth++;
    } else if (c === "}" || c === "]" || c === ")") {
      depth = Math.max(0, depth - 1);
      if (block && opened && depth === 0) return code[i + 1] === ";" ? i + 2 : i + 1;
    } else if (depth === 0 && c === ";") {
      return i + 1;
    } else if (depth === 0 && c === "\n" && !block) {
      const rest = code.slice(i + 1, i + 200).trimStart();
      if (STATEMENT_START.test(rest) || rest === "") return i;
    }
  }
  return code.length;
}

/**
 * Reads the top-level declarations of a namespace's `declarations` text (interfaces, type
 * aliases, enums …) with their JSDoc, the declarations each refers to, and a one-line form for
 * inlining. A tolerant scanner: text it cannot read is skipped, never an error.
 */
export function parseDeclarations(text: string): DeclarationIndex {
  const { code, noComments } = maskSource(text);
  const found: Array<{ name: string; text: string; inline: string | null; body: string }> = [];
  let pos = 0;
  while (pos < code.length) {
    const start = code.slice(pos).search(/\S/);
    if (start < 0) break;
    const at = pos + start;
    const head = DECLARATION_HEAD.exec(code.slice(at, at + 300));
    const kind = head?.[1]?.replace(/\s+/g, " ") ?? "";
    const end = Math.max(at + 1, statementEnd(code, { start: at, block: BLOCK_KINDS.has(kind) }));
    if (head !== null && head[2] !== undefined) {
      const leading = text.slice(pos, at);
      const docStart = leading.lastIndexOf("/**");
      const doc = docStart < 0 ? "" : `${leading.slice(docStart).trim()}\n`;
      const statement = noComments.slice(at, end);
      found.push({
        name: head[2],
        text: doc + text.slice(at, end).trim(),
        inline: inlineForm(kind, statement),
        body: code.slice(at, end),
      });
    }
    pos = end;
  }
  const names = new Set(found.map((entry) => entry.name));
  const index = new Map<string, DeclarationEntry>();
  for (const entry of found) {
    const refs = new Set<string>();
    for (const match of entry.body.matchAll(/[A-Za-z_$][\w$]*/g)) {
      if (match[0] !== entry.name && names.has(match[0])) refs.add(match[0]);
    }
    const prior = index.get(entry.name);
    index.set(entry.name, {
      name: entry.name,
      text: prior === undefined ? entry.text : `${prior.text}\n${entry.text}`,
      inline: prior === undefined ? entry.inline : null,
      references: [...new Set([...(prior?.references ?? []), ...refs])].sort(compareText),
    });
  }
  return index;
}

function inlineForm(kind: string, statement: string): string | null {
  if (kind === "interface") {
    const match = /^(?:export\s+)?(?:declare\s+)?interface\s+[\w$]+\s*\{/.exec(statement);
    if (match === null) return null;
    return collapse(statement.slice(match[0].length - 1).replace(/;\s*$/, ""));
  }
  if (kind === "type") {
    const match = /^(?:export\s+)?(?:declare\s+)?type\s+[\w$]+\s*=/.exec(statement);
    if (match === null) return null;
    return collapse(statement.slice(match[0].length).replace(/;\s*$/, ""));
  }
  return null;
}
