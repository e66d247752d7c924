import assert from "node:assert/strict";
import {
  callError,
  callOptions,
  realServerConfig,
  startHttpEverything,
  typeCheck,
} from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { assignIdentifiers } from "../../protocol/names.ts";
import type { NamespaceCatalogue, ToolProgress } from "../namespace.ts";
import { McpNamespace } from "./mcp_namespace.ts";

/** Renders a catalogue the way scripts see it: `declare namespace <ns> { types; functions }`. */
function renderNamespace(namespace: string, catalogue: NamespaceCatalogue): string {
  const ids = assignIdentifiers(catalogue.tools.map((t) => t.originalName), { what: "tool" });
  const functions = catalogue.tools.map((tool) => {
    const id = ids.identifiers.get(tool.originalName);
    const param = tool.inputType === null
      ? ""
      : `args${tool.inputOptional ? "?" : ""}: ${tool.inputType}`;
    const doc = tool.description.replaceAll("*/", "*\\/").split("\n").join("\n * ");
    return `/**\n * ${doc}\n */\nfunction ${id}(${param}): Promise<${tool.outputType}>;`;
  });
  return `declare namespace ${namespace} {\n${catalogue.declarations}\n${
    functions.join("\n")
  }\n}\n`;
}

Deno.test("`McpNamespace` serves the real reference servers over stdio", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-mcp-test-" });
  await Deno.writeTextFile(`${dir}/notes.txt`, "hello\nworld\n");
  const everything = new McpNamespace("everything", realServerConfig("everything"));
  const filesystem = new McpNamespace(
    "filesystem",
    realServerConfig("filesystem", { args: [dir] }),
  );
  const memory = new McpNamespace(
    "memory",
    realServerConfig("memory", { env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` } }),
  );
  const all = [everything, filesystem, memory];
  try {
    await Promise.all(all.map((ns) => ns.start()));

    await t.step("`start()` makes every server ready with its tool list", () => {
      for (const ns of all) assert.deepStrictEqual(ns.status(), { state: "ready" }, ns.name);
      const names = everything.catalogue().tools.map((tool) => tool.originalName);
      for (
        const expected of [
          "echo",
          "get-sum",
          "get-structured-content",
          "get-tiny-image",
          "trigger-long-running-operation",
        ]
      ) assert.ok(names.includes(expected), `everything lacks "${expected}": ${names}`);
      assert.ok(
        filesystem.catalogue().tools.some((tool) => tool.originalName === "read_text_file"),
      );
      assert.ok(memory.catalogue().tools.some((tool) => tool.originalName === "create_entities"));
      assert.equal(everything.connectedVia, "stdio");
      assert.equal(typeof everything.pid, "number");
    });

    await t.step("`catalogue()` leaves out tools that require task-based execution", () => {
      const names = everything.catalogue().tools.map((tool) => tool.originalName);
      assert.ok(!names.includes("simulate-research-query"));
      assert.ok(
        everything.catalogue().warnings.includes(
          'Tool "everything.simulate-research-query" is left out: it requires task-based execution',
        ),
      );
    });

    await t.step("`callTool()` unwraps echo's and get-sum's text", async () => {
      const echo = await everything.callTool("echo", { message: "hi" }, callOptions());
      assert.equal(echo.value, "Echo: hi");
      assert.deepStrictEqual(echo.raw.content, [{ type: "text", text: "Echo: hi" }]);
      const sum = await everything.callTool("get-sum", { a: 2, b: 3 }, callOptions());
      assert.equal(sum.value, "The sum of 2 and 3 is 5.");
    });

    await t.step(
      "`callTool()` returns structuredContent of a tool with an outputSchema",
      async () => {
        const result = await everything.callTool(
          "get-structured-content",
          { location: "Chicago" },
          callOptions(),
        );
        assert.deepStrictEqual(result.value, {
          temperature: 36,
          conditions: "Light rain / drizzle",
          humidity: 82,
        });
        const tool = everything.catalogue().tools.find((t) =>
          t.originalName === "get-structured-content"
        );
        assert.equal(tool?.outputType, "GetStructuredContentOutput");
        assert.ok(
          everything.catalogue().declarations.includes(
            "export interface GetStructuredContentOutput {\n  /** Temperature in celsius */\n  temperature: number;\n",
          ),
        );
      },
    );

    await t.step("`callTool()` keeps image and resource_link blocks whole", async () => {
      const image = await everything.callTool("get-tiny-image", undefined, callOptions());
      assert.ok(Array.isArray(image.value));
      const block = (image.value as { type: string; data?: string; mimeType?: string }[])
        .find((b) => b.type === "image");
      assert.equal(block?.mimeType, "image/png");
      assert.ok((block?.data ?? "").startsWith("iVBORw0KGgo"));
      assert.deepStrictEqual(image.value, image.raw.content);
      const links = await everything.callTool("get-resource-links", { count: 2 }, callOptions());
      const kinds = (links.value as { type: string }[]).map((b) => b.type);
      assert.deepStrictEqual(kinds, ["text", "resource_link", "resource_link"]);
    });

    await t.step("`callTool()` forwards progress, which keeps a slow call alive", async () => {
      const progress: ToolProgress[] = [];
      const result = await everything.callTool(
        "trigger-long-running-operation",
        { duration: 1, steps: 5 },
        { ...callOptions({ callTimeoutMs: 500 }), onProgress: (p) => progress.push(p) },
      );
      assert.match(String(result.value), /^Long running operation completed/);
      assert.deepStrictEqual(progress.map((p) => p.progress), [1, 2, 3, 4, 5]);
      assert.ok(progress.every((p) => p.total === 5));
    });

    await t.step("`callTool()` stops a call with progress at callMaxMs", async () => {
      const error = await callError(
        everything.callTool(
          "trigger-long-running-operation",
          { duration: 2, steps: 10 },
          callOptions({ callTimeoutMs: 500, callMaxMs: 700 }),
        ),
      );
      assert.equal(error.kind, "ToolTimeout");
      assert.equal(
        error.message,
        'Tool "everything.trigger-long-running-operation" timed out: still running after the 700 ms maximum',
      );
    });

    await t.step("`callTool()` refuses invalid arguments before sending", async () => {
      const error = await callError(everything.callTool("get-sum", { a: "2" }, callOptions()));
      assert.equal(error.kind, "InvalidToolInput");
      assert.equal(
        error.message,
        'Invalid input for tool "everything.get-sum": "/b" is required (required); "/a" must be number (type)',
      );
      const notObject = await callError(everything.callTool("echo", "hi", callOptions()));
      assert.equal(notObject.kind, "InvalidToolInput");
    });

    await t.step("`callTool()` names the nearest tools for an unknown one", async () => {
      const error = await callError(everything.callTool("ecoh", {}, callOptions()));
      assert.equal(error.kind, "UnknownTool");
      assert.match(
        error.message,
        /^Unknown tool "everything\.ecoh": did you mean "everything\.echo"\?; "everything" has: /,
      );
    });

    await t.step(
      "`listResources()` and `readResource()` expose resources and templates",
      async () => {
        const listing = await everything.listResources();
        const doc = listing.resources.find((r) => r.name === "architecture.md");
        assert.deepStrictEqual(doc, {
          uri: "demo://resource/static/document/architecture.md",
          name: "architecture.md",
          description: "Static document file exposed from /docs: architecture.md",
          mimeType: "text/markdown",
        });
        assert.deepStrictEqual(listing.templates.map((t) => t.uriTemplate).sort(), [
          "demo://resource/dynamic/blob/{resourceId}",
          "demo://resource/dynamic/text/{resourceId}",
        ]);
        const text = await everything.readResource(doc.uri);
        assert.match(text.contents[0]?.text ?? "", /^# Everything Server/);
        const blob = await everything.readResource("demo://resource/dynamic/blob/3");
        assert.match(atob(blob.contents[0]?.blob ?? ""), /^Resource 3: /);
        const error = await callError(everything.readResource("demo://nowhere"));
        assert.equal(error.kind, "ToolError");
        assert.match(error.message, /^Cannot read resource "demo:\/\/nowhere" of "everything": /);
      },
    );

    await t.step("`catalogue()` lists prompts", () => {
      const prompts = everything.catalogue().prompts ?? [];
      assert.ok(prompts.some((p) => p.name === "simple-prompt"));
      assert.equal(filesystem.catalogue().prompts, undefined);
    });

    await t.step(
      "`listResources()` is empty for a server without the resources capability",
      async () => {
        assert.deepStrictEqual(await filesystem.listResources(), { resources: [], templates: [] });
      },
    );

    await t.step("filesystem tools answer with structured content and isError", async () => {
      const read = await filesystem.callTool(
        "read_text_file",
        { path: `${dir}/notes.txt` },
        callOptions(),
      );
      assert.deepStrictEqual(read.value, { content: "hello\nworld\n" });
      await filesystem.callTool(
        "write_file",
        { path: `${dir}/new.txt`, content: "written" },
        callOptions(),
      );
      assert.equal(await Deno.readTextFile(`${dir}/new.txt`), "written");
      const denied = await callError(
        filesystem.callTool("read_text_file", { path: "/etc/passwd" }, callOptions()),
      );
      assert.equal(denied.kind, "ToolError");
      assert.match(denied.message, /^Access denied - path outside allowed directories/);
      assert.equal(denied.raw?.isError, true);
    });

    await t.step("memory tools keep a graph and expose it as a resource", async () => {
      await memory.callTool("create_entities", {
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote programs"] }],
      }, callOptions());
      const graph = await memory.callTool("read_graph", {}, callOptions());
      assert.deepStrictEqual(graph.value, {
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote programs"] }],
        relations: [],
      });
      const listing = await memory.listResources();
      assert.deepStrictEqual(listing.resources.map((r) => r.uri), ["memory://knowledge-graph"]);
    });

    await t.step("generated declarations of every server pass `deno check`", async () => {
      for (const ns of all) {
        assert.doesNotMatch(ns.catalogue().declarations, /Record<string, unknown>/, ns.name);
      }
      assert.ok(
        memory.catalogue().declarations.includes(
          "export interface CreateEntitiesInput {\n  entities: Array<{\n    /** The name of the entity */\n    name: string;\n",
        ),
      );
      const source = all.map((ns) => renderNamespace(ns.name, ns.catalogue())).join("\n") +
        `async function use() {\n` +
        `  const sum: unknown = await everything.get_sum({ a: 1, b: 2 });\n` +
        `  const weather = await everything.get_structured_content({ location: "Chicago" });\n` +
        `  const celsius: number = weather.temperature;\n` +
        `  const file = await filesystem.read_text_file({ path: "/x", head: 2 });\n` +
        `  const text: string = file.content;\n` +
        `  await memory.create_entities({ entities: [{ name: "a", entityType: "b", observations: [] }] });\n` +
        `  await everything.get_tiny_image();\n` +
        `  // @ts-expect-error b is required\n  await everything.get_sum({ a: 1 });\n` +
        `  // @ts-expect-error location is an enum\n  await everything.get_structured_content({ location: "Paris" });\n` +
        `  return [sum, celsius, text];\n}\nexport { use };\n`;
      const result = await typeCheck(source);
      assert.ok(result.ok, `${result.output}\n${source}`);
    });

    await t.step("`stop()` ends the child and later calls fail fast", async () => {
      const pid = everything.pid;
      assert.ok(pid !== undefined);
      await everything.stop();
      assert.deepStrictEqual(everything.status(), { state: "failed", reason: "stopped" });
      assert.throws(() => Deno.kill(pid, "SIGCONT"));
      const error = await callError(everything.callTool("echo", { message: "x" }, callOptions()));
      assert.equal(error.kind, "NamespaceUnavailable");
      assert.equal(error.message, 'Namespace "everything" is unavailable: stopped');
    });
  } finally {
    await Promise.all(all.map((ns) => ns.stop()));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`McpNamespace` connects over streamable HTTP and falls back to SSE", async (t) => {
  const [streamable, sse] = await Promise.all([
    startHttpEverything("streamableHttp"),
    startHttpEverything("sse"),
  ]);
  const base = { headers: {}, disabled: false, startTimeoutMs: 10_000 } as const;
  const viaStreamable = new McpNamespace("http", {
    ...base,
    url: streamable.url,
    transport: "auto",
  });
  const viaFallback = new McpNamespace("legacy", { ...base, url: sse.url, transport: "auto" });
  const forcedWrong = new McpNamespace("wrong", {
    ...base,
    url: sse.url,
    transport: "streamable-http",
  });
  const all = [viaStreamable, viaFallback, forcedWrong];
  try {
    await Promise.all(all.map((ns) => ns.start()));

    await t.step("a streamable HTTP server is used as such", async () => {
      assert.deepStrictEqual(viaStreamable.status(), { state: "ready" });
      assert.equal(viaStreamable.connectedVia, "streamable-http");
      const result = await viaStreamable.callTool("echo", { message: "over http" }, callOptions());
      assert.equal(result.value, "Echo: over http");
    });

    await t.step("an SSE-only server is reached through the fallback", async () => {
      assert.deepStrictEqual(viaFallback.status(), { state: "ready" });
      assert.equal(viaFallback.connectedVia, "sse");
      const result = await viaFallback.callTool("get-sum", { a: 20, b: 22 }, callOptions());
      assert.equal(result.value, "The sum of 20 and 22 is 42.");
    });

    await t.step("forcing streamable HTTP against an SSE server fails with the reason", () => {
      const status = forcedWrong.status();
      assert.equal(status.state, "failed");
      assert.match(status.state === "failed" ? status.reason : "", /^MCP server "wrong" /);
    });
  } finally {
    await Promise.all(all.map((ns) => ns.stop()));
    await Promise.all([streamable.stop(), sse.stop()]);
  }
});
