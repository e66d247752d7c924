/**
 * The part of the script globals `.d.ts` that does not depend on the catalogue:
 * `GatewayTool`, `stdin()`, `args`, `search()`, `describe()`, `ToolError`, `attach()`,
 * `resources`, each with a JSDoc and a runnable example.
 * @module
 */

import { FAILURE_KINDS } from "../protocol/run_document.ts";
import { exampleBlock, renderJsDoc } from "./type_text.ts";

function renderFailureKinds(): string {
  return FAILURE_KINDS.map((kind) => JSON.stringify(kind)).join(" | ");
}

/**
 * Renders the globals that do not depend on the catalogue; `describeExample` is the path the
 * `describe()` example names (a tool of the live catalogue when there is one).
 */
export function renderFixedGlobals(describeExample: string): string {
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
      "A tool compactly (its signature, the input type in full and the output's top level;",
      "`depth` shows more levels of the output, `full` everything with all its JSDoc), or a",
      "named script's description, examples and parameters. Throws, naming the nearest paths,",
      "when unknown.",
      ...exampleBlock([`console.log(describe(${JSON.stringify(describeExample)}));`]),
    ]) +
    "declare function describe(path: string, options?: { depth?: number; full?: boolean }): string;\n",
    `${doc(["Why a call failed."])}type GatewayFailureKind = ${renderFailureKinds()};\n`,
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
