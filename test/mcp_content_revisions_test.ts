/**
 * Content blocks per protocol revision: a client pinned to each revision the SDK negotiates
 * gets only the block types and fields its revision defines, block type by block type.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

const SCRIPT = `
attach({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png",
  annotations: { audience: ["user"], lastModified: "2025-01-01T00:00:00Z" }, _meta: { tag: 1 } });
attach({ type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" });
attach({ type: "resource_link", uri: "file:///data/x.csv", name: "x.csv", title: "Numbers",
  description: "a small table", size: 12, mimeType: "text/csv" });
attach({ type: "image", data: "A".repeat(400 * 1024), mimeType: "image/png" });
({ answer: 42 })
`;

/** Block types each revision defines for tool results. */
const DEFINED: Record<string, string[]> = {
  "2024-10-07": ["text", "image", "resource"],
  "2024-11-05": ["text", "image", "resource"],
  "2025-03-26": ["text", "image", "audio", "resource"],
  "2025-06-18": ["text", "image", "audio", "resource", "resource_link"],
  "2025-11-25": ["text", "image", "audio", "resource", "resource_link"],
};

type Block = { type: string; [key: string]: unknown };

/** A minimal MCP client over raw HTTP, pinned to one protocol revision. */
class PinnedClient {
  #session = "";
  #id = 0;
  constructor(readonly url: string, readonly token: string, readonly revision: string) {}

  async #post(body: unknown): Promise<Record<string, unknown> | null> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${this.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(this.#session
          ? { "mcp-session-id": this.#session, "mcp-protocol-version": this.revision }
          : {}),
      },
      body: JSON.stringify(body),
    });
    this.#session ||= response.headers.get("mcp-session-id") ?? "";
    const text = await response.text();
    if (response.status === 202) return null;
    assert.ok(response.ok, `${response.status}: ${text}`);
    // An SSE answer: the last `data:` line holding a response.
    const messages = text.split("\n").filter((l) => l.startsWith("data:")).map((l) =>
      JSON.parse(l.slice(5)) as Record<string, unknown>
    ).filter((m) => "id" in m);
    return messages.at(-1) ?? JSON.parse(text);
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const answer = await this.#post({ jsonrpc: "2.0", id: ++this.#id, method, params });
    assert.ok(answer && !answer.error, JSON.stringify(answer));
    return answer.result as Record<string, unknown>;
  }

  async initialize(): Promise<string> {
    const result = await this.request("initialize", {
      protocolVersion: this.revision,
      capabilities: {},
      clientInfo: { name: `pinned-${this.revision}`, version: "1" },
    });
    await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return String(result.protocolVersion);
  }
}

Deno.test("tool results use only the block types and fields of the client's protocol revision", async () => {
  await withHarness({}, async (gw) => {
    const { port, token } = await gw.server();
    for (const revision of Object.keys(DEFINED)) {
      const client = new PinnedClient(`http://127.0.0.1:${port}/mcp`, token, revision);
      assert.equal(await client.initialize(), revision, `negotiates ${revision}`);
      const result = await client.request("tools/call", {
        name: "exec",
        // attach()'s declared type is narrower than MCP's blocks (no annotations, _meta, title).
        arguments: { source: SCRIPT, check: false },
      });
      const blocks = result.content as Block[];
      const types = blocks.map((b) => b.type);
      for (const type of types) {
        assert.ok(DEFINED[revision]!.includes(type), `${revision} got a "${type}" block`);
      }
      const [summary, image, audio, link, big] = blocks;
      assert.equal(summary?.type, "text");
      assert.equal(image?.type, "image");
      const modern = revision >= "2025-06-18";
      assert.equal("structuredContent" in result, modern, `${revision} structuredContent`);
      assert.equal("_meta" in image!, modern, `${revision} _meta on a block`);
      assert.equal(
        "lastModified" in (image!.annotations as Record<string, unknown>),
        modern,
        `${revision} annotations.lastModified`,
      );
      assert.deepEqual((image!.annotations as { audience: string[] }).audience, ["user"]);
      if (revision >= "2025-03-26") assert.equal(audio?.type, "audio");
      else {
        assert.equal(audio?.type, "text");
        assert.match(String(audio?.text), /\[audio: audio\/wav, 12 bytes/);
      }
      if (modern) {
        assert.deepEqual(link, {
          type: "resource_link",
          uri: "file:///data/x.csv",
          name: "x.csv",
          title: "Numbers",
          description: "a small table",
          size: 12,
          mimeType: "text/csv",
        });
        assert.equal(big?.type, "resource_link");
        assert.match(String(big?.uri), /^gateway:\/\/runs\/[^/]+\/attachments\/3$/);
        assert.equal(big?.mimeType, "image/png");
        const read = await client.request("resources/read", { uri: big?.uri });
        const contents = read.contents as { blob: string; mimeType: string }[];
        assert.equal(contents[0]?.blob.length, 400 * 1024);
        assert.deepEqual((result.structuredContent as { result: unknown }).result, { answer: 42 });
      } else {
        // The link becomes an embedded resource that still says what it pointed at.
        assert.equal(link?.type, "resource");
        const resource = link?.resource as { uri: string; text: string; mimeType: string };
        assert.equal(resource.uri, "file:///data/x.csv");
        assert.match(
          resource.text,
          /name: x\.csv; title: Numbers; description: a small table; size: 12 bytes; mimeType: text\/csv/,
        );
        assert.equal(big?.type, "resource");
        // The structured content arrives as a JSON text block instead.
        assert.match(String(blocks.at(-1)?.text), /"answer": 42/);
      }
    }
  });
});
