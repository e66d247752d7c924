import assert from "node:assert/strict";
import { join } from "node:path";
import { type CatalogueNamespace, exposedTools } from "../protocol/catalogue.ts";
import { declarationsUsedBy, parseDeclarations } from "./declaration_index.ts";
import { renderNamespaceTypes, renderScriptGlobals, renderToolSignature } from "./render_types.ts";
import { embeddableType, renderJsDoc } from "./type_text.ts";
import { toolDescriptor } from "../../test/support/tool_descriptor.ts";

const tool = toolDescriptor;

const KV_DECLARATIONS = `
/** A stored entry. */
export interface Entry {
  key: string;
  /** Not a brace: "}" nor a comment end. */
  value: Value;
}
// a line comment with { an open brace
type Value = string | number | { nested: "}" };
interface GetArgs { key: string }
/** Long on purpose, so it is not inlined. */
interface Bulky {
  alpha: string; beta: string; gamma: string; delta: string; epsilon: string;
  zeta: string; eta: string; theta: string; iota: string;
}
`;

function kvNamespace(): CatalogueNamespace {
  const tools = [
    tool("get", {
      description: "Reads one entry.\nReturns null when missing; never */ breaks.",
      inputType: "GetArgs",
      inputOptional: false,
      outputType: "Entry | null",
      params: [{ name: "key", description: "The key to read.", required: true }],
    }),
    tool("list-all", {
      description: "Lists entries.",
      inputType: "{ prefix?: string }",
      inputOptional: true,
      outputType: "Entry[]",
      params: [{ name: "prefix", description: "Only keys starting so.", required: false }],
    }),
    tool("delete", { description: "Deletes everything.", outputType: "{ deleted: number }" }),
    tool("bulk", { inputType: "Bulky", inputOptional: false, outputType: "void" }),
    tool("hidden", { description: "Its name was refused." }),
    tool("commented", {
      inputType: "{ a: string } // trailing comment",
      inputOptional: true,
      outputType: "",
    }),
  ];
  return {
    name: "kv",
    identifier: "kv",
    kind: "local",
    status: { state: "ready" },
    catalogue: { tools, declarations: KV_DECLARATIONS, warnings: [] },
    toolIdentifiers: {
      get: "get",
      "list-all": "list_all",
      delete: "delete_",
      bulk: "bulk",
      commented: "commented",
    },
  };
}

function otherNamespaces(): CatalogueNamespace[] {
  return [
    {
      // A namespace named like a global function must not clash with it.
      name: "fetch",
      identifier: "fetch",
      kind: "mcp",
      status: { state: "ready" },
      catalogue: {
        tools: [tool("fetch", {
          description: "Fetches a URL.",
          inputType: "{ url: string }",
          inputOptional: false,
          outputType: "string",
        })],
        declarations: "",
        warnings: [],
      },
      toolIdentifiers: { fetch: "fetch" },
    },
    {
      name: "fancy-name",
      identifier: "fancy_name",
      kind: "mcp",
      status: { state: "failed", reason: "spawn ENOENT */ oops" },
      catalogue: { tools: [], declarations: "", warnings: [] },
      toolIdentifiers: {},
    },
  ];
}

Deno.test("`renderNamespaceTypes()` declares one GatewayTool member per exposed tool, original names referring to it", () => {
  const text = renderNamespaceTypes(kvNamespace());
  assert.match(text, /^\/\*\* Namespace "kv" \(local tool module, ready\): 5 tools\. \*\/$/m);
  assert.match(text, /declare namespace kv \{/);
  assert.match(text, /interface GatewayTools \{/);
  assert.match(text, /^ {4}get: GatewayTool<GetArgs, Entry \| null>;$/m);
  assert.match(
    text,
    /^ {4}list_all: GatewayTool<\(\{ prefix\?: string \}\) \| void, Entry\[\]>;$/m,
  );
  assert.match(text, /^ {4}"list-all": GatewayTools\["list_all"\];$/m);
  assert.match(text, /^ {4}delete_: GatewayTool<void, \{ deleted: number \}>;$/m);
  assert.match(text, /^ {4}"delete": GatewayTools\["delete_"\];$/m);
  assert.equal(text.match(/Reads one entry/g)?.length ?? 0, 1, "each description once");
  assert.equal(text.match(/@param args\.prefix/g)?.length, 1, "a renamed tool's JSDoc once");
  assert.doesNotMatch(text, /hidden/);
  assert.match(text, /^ {2}export interface Entry \{$/m, "declarations are kept, indented");
});

Deno.test("`renderNamespaceTypes()` writes JSDoc with @param lines and escapes comment ends", () => {
  const text = renderNamespaceTypes(kvNamespace());
  assert.match(
    text,
    / {5}\* Reads one entry\.\n {5}\* Returns null when missing; never \*\\\/ breaks\./,
  );
  assert.match(text, /@param args\.key The key to read\./);
  assert.match(text, /@param args\.prefix \(optional\) Only keys starting so\./);
  assert.match(text, /Original name of `tools\.kv\.list_all`\./);
});

Deno.test("`embeddableType()` ends a trailing line comment and fills in an empty type", () => {
  assert.equal(embeddableType("string // note"), "string // note\n");
  assert.equal(embeddableType('"a // not a comment"'), '"a // not a comment"');
  assert.equal(embeddableType("  "), "unknown");
  assert.equal(embeddableType(null, "void"), "void");
});

Deno.test("`renderJsDoc()` writes nothing for no lines and one line compactly", () => {
  assert.equal(renderJsDoc([]), "");
  assert.equal(renderJsDoc(["", "Hi */ there", ""], "  "), "  /** Hi *\\/ there */\n");
  assert.equal(renderJsDoc(["a\nb"]), "/**\n * a\n * b\n */\n");
});

Deno.test("`renderToolSignature()` inlines short declared types and keeps long ones by qualified name", () => {
  const ns = kvNamespace();
  const [bulk, commented, del, get, list] = exposedTools(ns).map((e) => e.tool);
  assert.equal(
    renderToolSignature(ns, get!),
    "tools.kv.get(args: { key: string }): Promise<GatewayNamespaces.kv.Entry | null>",
  );
  assert.equal(
    renderToolSignature(ns, bulk!),
    "tools.kv.bulk(args: GatewayNamespaces.kv.Bulky): Promise<void>",
  );
  assert.equal(
    renderToolSignature(ns, commented!),
    "tools.kv.commented(args?: { a: string }): Promise<unknown>",
  );
  assert.equal(renderToolSignature(ns, del!), "tools.kv.delete_(): Promise<{ deleted: number }>");
  assert.equal(
    renderToolSignature(ns, list!),
    "tools.kv.list_all(args?: { prefix?: string }): Promise<GatewayNamespaces.kv.Entry[]>",
  );
});

Deno.test("`renderToolSignature()` flattens multi-line types and drops their comments", () => {
  const ns = kvNamespace();
  const multi = tool("x", {
    inputType: "{\n  /** The id. */\n  id: string;\n  // note\n  n?: number;\n}",
    inputOptional: false,
  });
  assert.equal(
    renderToolSignature({ ...ns, toolIdentifiers: { x: "x" } }, multi),
    "tools.kv.x(args: { id: string; n?: number }): Promise<unknown>",
  );
});

Deno.test("`parseDeclarations()` reads declarations despite braces in strings and comments", () => {
  const index = parseDeclarations(KV_DECLARATIONS);
  assert.deepEqual([...index.keys()], ["Entry", "Value", "GetArgs", "Bulky"]);
  const entry = index.get("Entry")!;
  assert.match(entry.text, /^\/\*\* A stored entry\. \*\/\nexport interface Entry \{/);
  assert.ok(entry.text.endsWith("}"));
  assert.deepEqual(entry.references, ["Value"]);
  assert.equal(index.get("Value")!.inline, 'string | number | { nested: "}" }');
  assert.equal(index.get("GetArgs")!.inline, "{ key: string }");
  assert.doesNotMatch(index.get("Value")!.text, /line comment/);
});

Deno.test("`parseDeclarations()` splits type aliases written without semicolons", () => {
  const index = parseDeclarations(
    'type A = "a" | "b"\ntype B = {\n  a: A\n}\ninterface C<T> { t: T }',
  );
  assert.equal(index.get("A")!.inline, '"a" | "b"');
  assert.equal(index.get("B")!.inline, "{ a: A }");
  assert.deepEqual(index.get("B")!.references, ["A"]);
  assert.equal(index.get("C")!.inline, null, "generic declarations are not inlined");
});

Deno.test("`declarationsUsedBy()` follows references through other declarations", () => {
  const ns = kvNamespace();
  const get = ns.catalogue.tools[0]!;
  const used = declarationsUsedBy(get, parseDeclarations(ns.catalogue.declarations));
  assert.deepEqual(used.map((entry) => entry.name), ["Entry", "Value", "GetArgs"]);
});

Deno.test("`exposedTools()` accepts identifiers as a record and sorts by original name", () => {
  const ns = { ...kvNamespace(), toolIdentifiers: { "list-all": "list_all", get: "get" } };
  assert.deepEqual(exposedTools(ns).map((e) => e.identifier), ["get", "list_all"]);
});

async function denoCheck(dir: string, files: string[]): Promise<{ ok: boolean; output: string }> {
  await Deno.writeTextFile(
    join(dir, "deno.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
      },
    }),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", join(dir, "deno.json"), ...files],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { ok: out.success, output: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

const USES_EVERY_GLOBAL = `/// <reference path="./globals.d.ts" />
const entry = await tools.kv.get({ key: "a" });
const value: string | number | { nested: "}" } | undefined = entry?.value;
const all = await tools.kv.list_all();
const some = await tools.kv["list-all"]({ prefix: "a" });
const deleted: number = (await tools.kv.delete_()).deleted;
const commented: unknown = await tools.kv.commented({ a: "x" });
const envelope = await tools.kv.get.raw({ key: "a" });
const page: string = await tools.fetch.fetch({ url: "https://example.com" });
console.log(typeof fetch, tools["fancy-name"], tools.fancy_name);
const input = stdin();
const text: string = input.text();
const json: unknown = input.json();
const lines: string[] = input.lines();
const bytes: Uint8Array = input.raw();
const first: string | undefined = args[0];
const answer = search("entry", { namespace: "kv", limit: 5, offset: 0 });
const next: number | null = answer.next;
const hit = answer.results[0];
const kind: "tool" | "script" | undefined = hit?.kind;
const doc: string = describe("tools.kv.get");
try {
  await tools.kv.bulk({ alpha: "", beta: "", gamma: "", delta: "", epsilon: "", zeta: "",
    eta: "", theta: "", iota: "" });
} catch (error) {
  if (error instanceof ToolError) {
    const where: string = error.namespace + error.tool + error.kind + error.message;
    console.log(where, error.raw?.content[0]?.type);
  }
}
attach({ data: new Uint8Array([1]), mimeType: "application/octet-stream" });
attach({ type: "image", data: "AAAA", mimeType: "image/png" });
const listing = await resources.list("fetch");
const contents = await resources.read("fetch", listing.resources[0]?.uri ?? "x");
const blob: Uint8Array | undefined = contents.contents[0]?.blob;
const typed: GatewayNamespaces.kv.Entry | null = entry;
console.log(value, all, some, deleted, commented, envelope.content, page, text, json, lines, bytes, first,
  next, kind, doc, blob, listing.templates, typed);
`;

const MISUSES = `/// <reference path="./globals.d.ts" />
await tools.kv.nope();
await tools.kv.get({ key: 1 });
await tools.kv.get();
await tools.fancy_name.anything();
search("x", { limit: "5" });
`;

function examplesOf(text: string): string[] {
  return [...text.matchAll(/@example\n \* ```ts\n([\s\S]*?)\n \* ```/g)]
    .map((match) => match[1]!.split("\n").map((line) => line.replace(/^ \* ?/, "")).join("\n"));
}

Deno.test("`renderScriptGlobals()` type-checks beside Deno's lib and types every global", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-render-types-" });
  try {
    const globals = renderScriptGlobals({ namespaces: [kvNamespace(), ...otherNamespaces()] });
    await Deno.writeTextFile(join(dir, "globals.d.ts"), globals);
    await Deno.writeTextFile(join(dir, "uses.ts"), USES_EVERY_GLOBAL);
    const examples = examplesOf(globals);
    assert.ok(examples.length >= 8, `expected an @example per global, got ${examples.length}`);
    const files = ["uses.ts"];
    for (const [i, example] of examples.entries()) {
      const file = `example_${i}.ts`;
      await Deno.writeTextFile(
        join(dir, file),
        `/// <reference path="./globals.d.ts" />\n${example}\nexport {};\n`,
      );
      files.push(file);
    }
    const good = await denoCheck(dir, files);
    assert.ok(good.ok, `deno check failed:\n${good.output}`);

    await Deno.writeTextFile(join(dir, "misuses.ts"), MISUSES);
    const bad = await denoCheck(dir, ["misuses.ts"]);
    assert.equal(bad.ok, false);
    for (const line of [2, 3, 4, 5, 6]) {
      assert.match(bad.output, new RegExp(`misuses\\.ts:${line}:`), `no error on line ${line}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`renderScriptGlobals()` names a failed namespace's reason and what calls do", () => {
  const globals = renderScriptGlobals({ namespaces: otherNamespaces() });
  assert.match(globals, /Namespace "fancy-name" \(MCP server, failed: spawn ENOENT \*\\\/ oops\)/);
  assert.match(globals, /Calls fail with `NamespaceUnavailable`/);
  assert.match(globals, /readonly "fancy-name": GatewayNamespaces\.fancy_name\.GatewayTools;/);
  assert.match(globals, /readonly kind: "CheckFailed" \| |type GatewayFailureKind = "CheckFailed"/);
});
