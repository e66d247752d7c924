import assert from "node:assert/strict";
import { adaptBlock, adaptToolResult, atLeast } from "./content_for_revision.ts";

Deno.test("revisions compare by publication order; an unknown one counts as the newest", () => {
  assert.equal(atLeast("2024-11-05", "2025-06-18"), false);
  assert.equal(atLeast("2025-06-18", "2025-06-18"), true);
  assert.equal(atLeast("2099-01-01", "2025-06-18"), true);
});

Deno.test("a block type a revision does not define never reaches its client", () => {
  for (const revision of ["2024-11-05", "2025-03-26"]) {
    const link = adaptBlock({
      type: "resource_link",
      uri: "gateway://runs/r/attachments/0",
      name: "image-0",
      title: "Chart",
      description: "the chart",
      size: 300_000,
      mimeType: "image/png",
    }, revision);
    assert.equal(link.type, "resource");
    const resource = link.resource as { uri: string; mimeType: string; text: string };
    assert.equal(resource.uri, "gateway://runs/r/attachments/0");
    assert.match(
      resource.text,
      /title: Chart; description: the chart; size: 300000 bytes; mimeType: image\/png/,
    );
  }
  assert.equal(
    adaptBlock({ type: "audio", data: "AAAA", mimeType: "audio/wav" }, "2024-11-05").type,
    "text",
  );
  assert.equal(
    adaptBlock({ type: "audio", data: "AAAA", mimeType: "audio/wav" }, "2025-03-26").type,
    "audio",
  );
  const unknown = adaptBlock({ type: "hologram" }, "2025-11-25");
  assert.deepEqual(unknown, {
    type: "text",
    text: '[content block of type "hologram" that protocol revision 2025-11-25 does not define]',
  });
});

Deno.test("structuredContent below 2025-06-18 becomes a JSON text block; isError and _meta stay", () => {
  const result = {
    content: [{ type: "text", text: "hi" }],
    structuredContent: { a: 1 },
    isError: true,
    _meta: { k: 1 },
  };
  const old = adaptToolResult(result, "2025-03-26");
  assert.equal("structuredContent" in old, false);
  assert.deepEqual(old.content, [{ type: "text", text: "hi" }, {
    type: "text",
    text: '{\n  "a": 1\n}',
  }]);
  assert.equal(old.isError, true);
  assert.deepEqual(old._meta, { k: 1 });
  assert.deepEqual(adaptToolResult(result, "2025-06-18").structuredContent, { a: 1 });
});
