/**
 * The guide the gateway's MCP server serves (`gateway://guide`): the same facts as
 * `gateway --llm-help`, told in terms of the MCP tools (`exec`, `search`, `describe` …) rather
 * than shell commands, in as few tokens as a model needs to write a working script.
 * @module
 */

import { CatalogueEntries } from "./catalogue_entries.ts";
import type { CatalogueSnapshot } from "../protocol/catalogue.ts";
import type { GuideLimits } from "./llm_guide.ts";
import { summariseNamespace } from "./namespace_summary.ts";
import { pinnedLines } from "./pinned_tools.ts";

/** Options of {@linkcode renderMcpGuide}. */
export interface McpGuideOptions {
  limits: GuideLimits;
  /** Tools whose signatures the guide shows up front (`pinned` in gateway.json). */
  pinned?: readonly string[];
}

function grants(limits: GuideLimits): string {
  const ceiling = Object.entries(limits.maxPermissions ?? {}).flatMap(([name, value]) =>
    value === true
      ? [name]
      : Array.isArray(value) && value.length > 0
      ? [`${name}: ${value.join(", ")}`]
      : []
  );
  return ceiling.length === 0 ? "none may be granted" : `at most ${ceiling.join("; ")}`;
}

function kib(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * Renders the MCP guide as Markdown.
 *
 * @example
 * ```ts
 * import { renderMcpGuide } from "./mcp_guide.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import { execConfigSchema } from "../config/gateway_config.ts";
 * import assert from "node:assert/strict";
 * const limits = execConfigSchema.parse({});
 * const guide = renderMcpGuide(syntheticSnapshot({ namespaces: 2 }), { limits });
 * assert.match(guide, /`exec`/);
 * assert.match(guide, /^- `tools\.github` \(MCP, 8 tools\): /m);
 * assert.doesNotMatch(guide, /gateway exec|--allow-/);
 * ```
 */
export function renderMcpGuide(
  source: CatalogueSnapshot | CatalogueEntries,
  options: McpGuideOptions,
): string {
  const entries = source instanceof CatalogueEntries ? source : new CatalogueEntries(source);
  const limits = options.limits;
  const namespaces = entries.namespaces.map((ns) => `- ${summariseNamespace(ns)}`);
  const pinned = pinnedLines(entries, options.pinned ?? []);
  const lines = [
    "# gateway: code mode",
    "",
    "Write one TypeScript program for the whole job and run it with `exec`; only its result",
    "and console output come back. Tools are async functions: `await tools.<ns>.<tool>(args)`.",
    "",
    "## Namespaces",
    ...(namespaces.length > 0 ? namespaces : ["(none configured)"]),
    ...(pinned.length > 0 ? ["", "## Pinned tools", ...pinned.map((line) => `- ${line}`)] : []),
    "",
    "## Find, never guess",
    '`search` {query}: one line a tool. `describe` {path: "ns.tool"}: input type, output shape.',
    "",
    "## Scripts",
    "- Last expression = `result`; `console.log` = stdout. Loop and `Promise.all` inside.",
    "- Globals: `tools`, `args`, `stdin()` (`.text()` `.json()` `.lines()`), `search()`,",
    '  `describe()`, `attach()`, `resources`; `tools.ns["a-b"](…)` for odd names.',
    "- A call gives structuredContent, else its text (JSON parsed), else its content blocks;",
    "  a failure throws `ToolError` (`.kind`); `.raw(args)` gives the envelope.",
    `- No imports needed; no network, files or env unless \`permissions\` asks (${
      grants(limits)
    }).`,
    "",
    "## Failures",
    "`error.kind`, `error.line` and the fix. CheckFailed, SyntaxError: fix that line.",
    "UnknownTool, InvalidToolInput: `describe` it. ToolError: the tool said no. Timeout,",
    "ToolCallLimitExceeded, MemoryLimit: do less per run. PermissionDenied, PolicyDenied: ask.",
    "",
    `Limits: ${limits.timeoutMs} ms a run, ${limits.callTimeoutMs} ms a call, ` +
    `${limits.maxToolCalls} calls, ${kib(limits.maxOutputBytes)} output, ` +
    `${limits.maxMemoryMb} MB; type check ${limits.typecheck ? "on" : "off"}.`,
    "",
  ];
  return lines.join("\n");
}
