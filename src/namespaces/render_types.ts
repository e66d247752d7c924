/**
 * Renders what scripts are type-checked against: a namespace's types, the ambient
 * globals `.d.ts`, and one-line signatures.
 * @module
 */

import {
  type CatalogueNamespace,
  compareText,
  describeStatus,
  exposedTools,
  lookupToolIdentifier,
  namespaceKindLabel,
  type ToolDescriptor,
} from "../protocol/catalogue.ts";
import { type DeclarationIndex, parseDeclarations } from "./declaration_index.ts";
import { renderFixedGlobals } from "./fixed_globals_types.ts";
import {
  embeddableType,
  exampleBlock,
  maskSource,
  oneLineType,
  renderJsDoc,
  toolDocLines,
} from "./type_text.ts";
import { countOf } from "../protocol/count_of.ts";

/** Inline a referenced declaration into a one-line signature only up to this many characters. */
const INLINE_MAX_CHARS = 100;

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

function renderNamespaceDoc(ns: CatalogueNamespace, indent: string): string {
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
function renderNamespaceBody(ns: CatalogueNamespace, indent: string): string {
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
export function renderNamespaceTypes(ns: CatalogueNamespace): string {
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
const renderedTypes = new WeakMap<CatalogueNamespace, string>();

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
  ns: CatalogueNamespace,
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

function exampleCall(namespaces: readonly CatalogueNamespace[]): string | null {
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

function renderToolsGlobal(namespaces: readonly CatalogueNamespace[]): string {
  const call = exampleCall(namespaces);
  const example = call === null
    ? ['console.log(Object.keys(tools)); // the namespaces, e.g. ["kv", …]']
    : [
      `const value = await ${call}(); // the unwrapped result`,
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

/**
 * Renders the whole ambient `.d.ts` a script is type-checked against: `tools` typed from every
 * namespace (one that is starting or failed still appears with what is known), `stdin()`,
 * `args`, `search()`, `describe()`, `ToolError`, `attach()` and `resources`. The text has no
 * imports or exports, so a `/// <reference path>` to it (or a lib entry) makes the globals
 * visible beside Deno's own.
 */
export function renderScriptGlobals(
  snapshot: { namespaces: readonly CatalogueNamespace[] },
): string {
  const namespaces = [...snapshot.namespaces].sort((a, b) => compareText(a.name, b.name));
  const toolCount = namespaces.reduce((sum, ns) => sum + exposedTools(ns).length, 0);
  const call = exampleCall(namespaces);
  const header = [
    "// Generated by gateway from the live catalogue: the globals every script sees.",
    `// ${countOf(namespaces.length, "namespace")}, ${countOf(toolCount, "tool")}. Do not edit.`,
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
