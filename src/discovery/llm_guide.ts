/**
 * The guide an agent reads before using the gateway (`gateway --llm-help`), generated
 * from the live catalogue and the limits in force.
 * @module
 */

import type { ExecConfig, PermissionSet } from "../config/gateway_config.ts";
import { FAILURE_KINDS, type FailureKind } from "../protocol/run_document.ts";
import { CatalogueEntries } from "./catalogue_entries.ts";
import { toolTopics } from "./namespace_summary.ts";
import { pinnedLines } from "./pinned_tools.ts";
import {
  type CatalogueSnapshot,
  describeStatus,
  exposedTools,
  namespaceKindLabel,
} from "../protocol/catalogue.ts";

/** The exec settings the guide states; an {@linkcode ExecConfig} fits. */
export type GuideLimits =
  & Pick<
    ExecConfig,
    | "timeoutMs"
    | "callTimeoutMs"
    | "callMaxMs"
    | "maxOutputBytes"
    | "maxToolCalls"
    | "maxConcurrentCalls"
    | "typecheck"
    | "maxMemoryMb"
    | "maxSourceBytes"
    | "yieldAfterMs"
  >
  & { permissions?: PermissionSet; maxPermissions?: PermissionSet };

/** What each failure kind means and what to do about it; one line each. */
const FAILURE_ADVICE: Record<FailureKind, string> = {
  CheckFailed: "the script does not type-check; `diagnostics` point at your lines. Fix the types.",
  SyntaxError: "the script does not parse; see `line`/`column`.",
  ScriptError: "an uncaught exception in the script, with its line.",
  ToolError: "a tool reported a failure; `message` is its text. Catch `ToolError` to recover.",
  UnknownTool: "no such tool; `hint` lists the nearest names. Use search().",
  InvalidToolInput: "arguments broke the tool's input schema; the message names path and rule.",
  ToolTimeout: "one call went silent past callTimeoutMs (or ran past callMaxMs).",
  Timeout: "the whole run passed timeoutMs; it was killed.",
  ToolCallLimitExceeded: "more than maxToolCalls calls in one run; batch or paginate.",
  PermissionDenied: "the script touched net/files/env/… without a grant; the message names it.",
  PermissionRefused: "the permissions asked for exceed the configured ceiling.",
  NamespaceUnavailable: "the namespace is starting or failed; see `gateway tools`.",
  PolicyDenied: "a policy rule forbids this tool (or an approval was refused).",
  MemoryLimit: "the run passed maxMemoryMb; process less data at once.",
  Cancelled: "someone cancelled the run.",
  Crashed: "the script's process died unexpectedly.",
};

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function formatGrant(set: PermissionSet | undefined): string {
  const parts = Object.entries(set ?? {})
    .filter(([, value]) => value === true || (Array.isArray(value) && value.length > 0))
    .map(([name, value]) => (value === true ? name : `${name}=${(value as string[]).join(",")}`));
  return parts.length === 0 ? "none" : parts.join("; ");
}

function namespaceSection(entries: CatalogueEntries, pinned: readonly string[]): string[] {
  const lines = ["## What is available now", ""];
  if (entries.namespaces.length === 0) lines.push("No namespaces are configured.");
  for (const ns of entries.namespaces) {
    const count = exposedTools(ns).length;
    const name = ns.identifier === ns.name ? ns.identifier : `${ns.identifier} ("${ns.name}")`;
    const kind = namespaceKindLabel(ns.kind, true);
    lines.push(
      `- \`tools.${name}\`: ${kind}, ${describeStatus(ns.status)}, ${count} tool${
        count === 1 ? "" : "s"
      }${count > 0 ? ` (${toolTopics(ns)})` : ""}`,
    );
  }
  const pins = pinnedLines(entries, pinned);
  if (pins.length > 0) lines.push("", "Pinned tools:", ...pins.map((line) => `- ${line}`));
  const scripts = entries.snapshot.scripts.length;
  lines.push("", `Named scripts: ${scripts} (\`gateway scripts\` lists them).`);
  return lines;
}

function exampleTool(entries: CatalogueEntries): string {
  for (const entry of entries.entries) {
    if (entry.kind === "tool" && entry.namespace.status.state === "ready") return entry.path;
  }
  return "tools.kv.get";
}

/** Options of {@linkcode renderLlmGuide}. */
export interface LlmGuideOptions {
  /** The exec limits and grants in force (the config's `exec`). */
  limits: GuideLimits;
  /** Tools whose signatures the guide shows up front (`pinned` in gateway.json). */
  pinned?: readonly string[];
}

/**
 * Renders the agent guide as Markdown: how to discover tools, write and run a script, the
 * script globals, how results unwrap, what each failure kind means, the limits in force and the
 * namespaces present right now.
 *
 * @example
 * ```ts
 * import { renderLlmGuide } from "./llm_guide.ts";
 * import { syntheticSnapshot } from "./synthetic_snapshot.ts";
 * import { execConfigSchema } from "../config/gateway_config.ts";
 * import assert from "node:assert/strict";
 * const limits = execConfigSchema.parse({ timeoutMs: 60_000 });
 * const guide = renderLlmGuide(syntheticSnapshot({ namespaces: 2 }), { limits });
 * assert.match(guide, /^# gateway: guide for agents$/m);
 * assert.match(guide, /^- `tools\.github`: MCP server, ready, 8 tools \(/m);
 * assert.match(guide, /^- Whole run: 60000 ms \(`Timeout`\)\.$/m);
 * ```
 */
export function renderLlmGuide(
  source: CatalogueSnapshot | CatalogueEntries,
  options: LlmGuideOptions,
): string {
  const entries = source instanceof CatalogueEntries ? source : new CatalogueEntries(source);
  const limits = options.limits;
  const tool = exampleTool(entries);
  const lines = [
    "# gateway: guide for agents",
    "",
    "gateway runs a TypeScript program you write; the program calls tools as typed async",
    "functions (`await tools.<namespace>.<tool>(args)`), and only its output comes back to you.",
    "Prefer one script that does the whole job (loops, filtering, Promise.all) over many calls.",
    "",
    ...namespaceSection(entries, options.pinned ?? []),
    "",
    "## Discover",
    "",
    "- `gateway catalog [--budget TOKENS]`: every namespace, then as many signatures as fit",
    "  (default 2000 tokens); says COMPLETE or PARTIAL.",
    "- `gateway search QUERY [--namespace NS] [--limit N] [--offset K]`: ranked tools and named",
    "  scripts; `next` is the offset of the next page (null on the last).",
    "- `gateway tools` (namespaces, counts, status); `gateway tools types NS[,NS…]` (TypeScript).",
    '- In a script: `search("words", { namespace, limit, offset })` and `describe("tools.ns.tool")`',
    "  (full declaration with JSDoc and the types it uses).",
    "",
    "## Write and run a script",
    "",
    "- Inline: `gateway exec '<code>'`. The value of the last expression statement is the",
    `  \`result\` (e.g. \`await ${tool}(…)\`); \`console.log\` output is \`stdout\`.`,
    "- A file: `gateway path/to/script.ts [args…]`; a named script from `scripts/`:",
    "  `gateway run NAME [args…]`. Arguments arrive in `args` (and `Deno.args`).",
    "- Input: pipe data in and read it with `stdin()`:",
    "  `cat data.json | gateway exec 'stdin().json()'`.",
    "- `--json` prints the whole run document; `--no-check` skips the type check.",
    "- Scripts get no network, file, env or subprocess access unless asked for with",
    "  `--allow-net[=hosts] --allow-read[=paths] --allow-write[=paths] --allow-env[=names]",
    "  --allow-run[=cmds]` (up to the configured ceiling).",
    "- No imports are needed: the globals below are always there. Independent calls can run",
    "  in parallel with `Promise.all`.",
    "",
    "## Script globals",
    "",
    "| global | meaning |",
    "| --- | --- |",
    "| `tools.<ns>.<tool>(args?)` | call a tool: the unwrapped result; throws `ToolError` on failure |",
    "| `tools.<ns>.<tool>.raw(args?)` | the untouched MCP `CallToolResult` |",
    '| `tools.<ns>["orig-name"](args?)` | a tool by its original name (any characters) |',
    "| `stdin()` | `.text()` trimmed, `.json()` parsed or `null`, `.lines()`, `.raw()` bytes |",
    "| `args` | the script's arguments (strings) |",
    "| `search(query, {namespace?, limit?, offset?})` | `{results, total, next}` (synchronous) |",
    "| `describe(path)` | a tool's declaration or a script's description (synchronous) |",
    "| `ToolError` | `.namespace`, `.tool`, `.kind`, `.raw` |",
    "| `attach(block)` | hand an image, audio or resource to the caller |",
    "| `resources.list(ns)`, `resources.read(ns, uri)` | an MCP server's resources |",
    "",
    "## Results",
    "",
    "A tool call resolves, in this order: `isError` → throws `ToolError` (message = the text);",
    "`structuredContent` → that value; all text blocks → the joined text, parsed as JSON when the",
    "tool declares no output schema and it looks like JSON; otherwise the content blocks (images",
    "and resources kept whole). Local tool modules return their value as is. Arguments are",
    "checked against the input schema before anything is sent.",
    "",
    "Every run answers one JSON document: `{ runId, ok, result, stdout, stderr, exitCode,",
    "durationMs, toolCalls, stdoutTruncated, warnings, attachments, error? }`.",
    "The CLI exits 0 on success, 1 on a script failure, 2 on a usage error, 124 on timeout.",
    "",
    "## Failures (`error.kind`)",
    "",
    ...FAILURE_KINDS.map((kind) => `- \`${kind}\`: ${FAILURE_ADVICE[kind]}`),
    "",
    "## Limits in force",
    "",
    `- Whole run: ${limits.timeoutMs} ms (\`Timeout\`).`,
    `- One tool call: ${limits.callTimeoutMs} ms without progress, ${limits.callMaxMs} ms at most.`,
    `- Tool calls per run: ${limits.maxToolCalls}; at once: ${limits.maxConcurrentCalls}.`,
    `- Output returned: ${
      formatBytes(limits.maxOutputBytes)
    } of stdout (the rest is kept: \`gateway history show ID\`).`,
    `- Memory: ${limits.maxMemoryMb} MB; script source: ${formatBytes(limits.maxSourceBytes)}.`,
    `- Type check before running: ${limits.typecheck ? "on" : "off"}.`,
    limits.yieldAfterMs > 0
      ? `- Runs still going after ${limits.yieldAfterMs} ms answer \`{status: "running", runId}\`; ` +
        "`gateway wait ID` returns the rest."
      : "- Runs are answered when they finish (`--yield MS` returns early; `gateway wait ID`).",
    `- Default grant: ${formatGrant(limits.permissions)}; most a caller may ask for: ${
      formatGrant(limits.maxPermissions)
    }.`,
    "",
    "## Example",
    "",
    "```ts",
    'const hits = search("list", { limit: 3 }).results;',
    "for (const hit of hits) console.log(hit.path, hit.signature);",
    `console.log(describe(${JSON.stringify(tool)}));`,
    "```",
    "",
  ];
  return lines.join("\n");
}
