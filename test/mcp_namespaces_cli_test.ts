/**
 * Real MCP servers (everything, filesystem, memory from npm) as namespaces, driven from the CLI
 * and RPC as a user would: listing, prompts, types, calls with every result shape, progress,
 * resources, and the unwrap rules of docs/architecture.md#tool-results.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunDocument } from "../src/protocol/run_document.ts";
import { REPO, withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";

const SERVERS = join(REPO, "test/servers/node_modules/@modelcontextprotocol");

function parseRun(stdout: string): RunDocument {
  return JSON.parse(stdout) as RunDocument;
}

Deno.test("real MCP servers are typed namespaces: list, prompts, calls, results, progress, resources", async (t) => {
  const files = await Deno.makeTempDir({ prefix: "gateway-mcp-fs-" });
  await Deno.writeTextFile(join(files, "hello.txt"), "hello from disk\n");
  const config = {
    port: 0,
    mcpServers: {
      everything: {
        command: "node",
        args: [join(SERVERS, "server-everything/dist/index.js"), "stdio"],
      },
      files: { command: "node", args: [join(SERVERS, "server-filesystem/dist/index.js"), files] },
      memory: {
        command: "node",
        args: [join(SERVERS, "server-memory/dist/index.js")],
        env: { MEMORY_FILE_PATH: join(files, "memory.jsonl") },
      },
    },
  };
  try {
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      const exec = async (source: string, extra: string[] = []) =>
        parseRun((await gw.cli(["exec", "--json", ...extra, source])).stdout);

      await t.step(
        "gateway tools lists each server ready with its tools, and its prompts",
        async () => {
          // The first call after start waits for the upstreams it names.
          const warm = await exec("await tools.everything.echo({ message: 'warm' })");
          assert.equal(warm.ok, true, JSON.stringify(warm.error));
          const listed = JSON.parse((await gw.cli(["tools", "--json"])).stdout) as {
            namespaces: { name: string; status: string; tools: number }[];
          };
          for (const name of ["everything", "files", "memory"]) {
            const ns = listed.namespaces.find((n) => n.name === name);
            assert.ok(ns, `${name} listed`);
            if (ns.status !== "ready") {
              // files and memory may still be starting.
              await pollUntil(`${name} to be ready in gateway tools`, async () => {
                const again = JSON.parse(
                  (await gw.cli(["tools", "--json"])).stdout,
                ) as typeof listed;
                return again.namespaces.find((n) => n.name === name)?.status === "ready";
              });
            }
          }
          const one = await gw.cli(["tools", "everything"]);
          assert.match(one.stdout, /^everything \(mcp, ready\): \d+ tools/);
          assert.match(
            one.stdout,
            /tools\.everything\.get_sum\(args: \{ a: number; b: number \}\)/,
          );
          assert.match(one.stdout, /prompts \(\d+\):\n {2}simple-prompt/);
          const types = await gw.cli(["tools", "types", "everything,memory"]);
          assert.match(types.stdout, /"get-sum"/);
          assert.match(types.stdout, /^ {2}namespace memory \{/m);
        },
      );

      await t.step("results unwrap: isError throws; structured, text, JSON, blocks", async () => {
        const sum = await exec("await tools.everything.get_sum({ a: 2, b: 40 })");
        assert.equal(sum.ok, true, JSON.stringify(sum.error));
        assert.equal(sum.result, "The sum of 2 and 40 is 42.");
        const structured = await exec(
          "await tools.everything.get_structured_content({ location: 'New York' })",
        );
        assert.equal(structured.ok, true, JSON.stringify(structured.error));
        assert.equal(typeof (structured.result as { temperature: number }).temperature, "number");
        const image = await exec(
          "const blocks = await tools.everything.get_tiny_image() as { type: string; mimeType?: string }[];\n" +
            "blocks.map((b) => b.type + ':' + (b.mimeType ?? ''))",
        );
        assert.equal(image.ok, true, JSON.stringify(image.error));
        assert.ok(
          (image.result as string[]).includes("image:image/png"),
          JSON.stringify(image.result),
        );
        const raw = await exec("(await tools.everything.echo.raw({ message: 'hi' })).content[0]");
        assert.deepEqual(raw.result, { type: "text", text: "Echo: hi" });
        const bracket = await exec('await tools.everything["get-sum"]({ a: 1, b: 1 })');
        assert.equal(bracket.result, "The sum of 1 and 1 is 2.");
      });

      await t.step("an image can be handed to the caller with attach()", async () => {
        const doc = await exec(
          "const blocks = await tools.everything.get_tiny_image() as Parameters<typeof attach>[0][];\n" +
            "attach(blocks.find((b) => 'type' in b && b.type === 'image')!); 'ok'",
        );
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        assert.equal(doc.attachments[0]?.type, "image");
      });

      await t.step("progress of a long operation reaches the caller as run.progress", async () => {
        const client = await gw.client();
        try {
          const progress: { progress: number; namespace: string }[] = [];
          client.onNotification((n) => {
            if (n.method === "run.progress") {
              progress.push(n.params as { progress: number; namespace: string });
            }
          });
          const doc = await client.request<RunDocument>("exec", {
            source:
              "await tools.everything.trigger_long_running_operation({ duration: 1, steps: 4 })",
            stream: true,
          });
          assert.equal(doc.ok, true, JSON.stringify(doc.error));
          assert.ok(progress.length >= 1, "some progress arrived");
          assert.equal(progress[0]!.namespace, "everything");
          const values = progress.map((p) => p.progress);
          assert.deepEqual(values, [...values].sort((a, b) => a - b), "progress only increases");
        } finally {
          await client.close();
        }
      });

      await t.step("resources and templates list, and a resource reads", async () => {
        const doc = await exec(
          "const r = await resources.list('everything');\n" +
            "const first = r.resources[0]!;\n" +
            "const read = await resources.read('everything', first.uri);\n" +
            "({ count: r.resources.length, templates: r.templates.length, uri: read.contents[0]!.uri })",
        );
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        const result = doc.result as { count: number; templates: number; uri: string };
        assert.ok(result.count > 0);
        assert.ok(result.templates > 0);
        assert.match(result.uri, /^\w+:/);
      });

      await t.step("filesystem and memory servers work from one script", async () => {
        const doc = await exec(
          // read_text_file declares an outputSchema: its structuredContent is the result.
          `const { content: text } = await tools.files.read_text_file({ path: ${
            JSON.stringify(join(files, "hello.txt"))
          } }) as { content: string };\n` +
            "await tools.memory.create_entities({ entities: [{ name: 'disk', entityType: 'file', observations: [String(text)] }] });\n" +
            "const graph = await tools.memory.read_graph() as { entities: { name: string }[] };\n" +
            "({ text, names: graph.entities.map((e) => e.name) })",
        );
        assert.equal(doc.ok, true, JSON.stringify(doc.error));
        const result = doc.result as { text: string; names: string[] };
        assert.match(String(result.text), /hello from disk/);
        assert.deepEqual(result.names, ["disk"]);
        const outside = await exec("await tools.files.read_text_file({ path: '/etc/passwd' })");
        assert.equal(outside.ok, false);
        assert.equal(outside.error?.kind, "ToolError");
        assert.equal(outside.error?.namespace, "files");
      });
    });
  } finally {
    await Deno.remove(files, { recursive: true });
  }
});
