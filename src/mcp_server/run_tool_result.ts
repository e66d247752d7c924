/**
 * A run document as an MCP tool result: a failed run is `isError` with text starting
 * `error[Kind]`, the structured content is the run document itself, and media the run attached
 * comes as image/audio blocks — or, above {@linkcode MEDIA_LINK_BYTES}, as a `resource_link` to
 * `gateway://runs/ID/attachments/N`, so base64 never floods a model's context.
 * @module
 */

import type { RunDocument, RunningDocument } from "../protocol/run_document.ts";
import type { ContentBlock, ToolResultShape } from "./content_for_revision.ts";

/** Media larger than this (decoded bytes) is linked rather than inlined. */
export const MEDIA_LINK_BYTES = 256 * 1024;

/** Tells a finished run document from a yielded one or another answer. */
export function isRunDocument(value: unknown): value is RunDocument {
  return typeof value === "object" && value !== null && "runId" in value && "ok" in value;
}

/** Tells a yielded run (`{status: "running", runId}`) from a finished one. */
export function isRunningDocument(value: unknown): value is RunningDocument {
  return typeof value === "object" && value !== null &&
    (value as { status?: unknown }).status === "running";
}

/** The URI under which the gateway serves attachment `index` of run `runId`. */
export function attachmentUri(runId: string, index: number): string {
  return `gateway://runs/${encodeURIComponent(runId)}/attachments/${index}`;
}

function decodedBytes(base64: string): number {
  return Math.floor(base64.length * 3 / 4);
}

function mediaBlock(
  block: RunDocument["attachments"][number],
  runId: string,
  index: number,
  linkAbove: number,
): ContentBlock {
  if ((block.type === "image" || block.type === "audio") && decodedBytes(block.data) > linkAbove) {
    return {
      type: "resource_link",
      uri: attachmentUri(runId, index),
      name: `${block.type}-${index}`,
      title: `${block.type} ${index + 1} attached by run ${runId}`,
      description: `${block.type} the script attached; too large to inline`,
      mimeType: block.mimeType,
      size: decodedBytes(block.data),
    };
  }
  return { ...block } as ContentBlock;
}

/** Turns a run (finished or yielded) into a tool result in the newest revision's shape. */
export function runToToolResult(
  value: unknown,
  options: { linkAbove?: number } = {},
): ToolResultShape {
  if (isRunningDocument(value)) {
    return {
      content: [{
        type: "text",
        text: `running: run ${value.runId} is still going; call wait with runId "${value.runId}"` +
          (value.stdout ? `\nstdout so far:\n${value.stdout}` : ""),
      }],
      structuredContent: { ...value },
    };
  }
  if (!isRunDocument(value)) {
    return {
      content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
      ...(typeof value === "object" && value !== null && !Array.isArray(value)
        ? { structuredContent: value as Record<string, unknown> }
        : {}),
    };
  }
  const parts: string[] = [];
  if (value.error) {
    const at = value.error.line !== undefined ? ` (line ${value.error.line})` : "";
    parts.push(`error[${value.error.kind}]: ${value.error.message}${at}`);
    if (value.error.hint) parts.push(`hint: ${value.error.hint}`);
  }
  if (value.stdout) parts.push(value.stdout.replace(/\n$/, ""));
  if (value.result !== undefined) {
    parts.push(
      typeof value.result === "string" ? value.result : JSON.stringify(value.result, null, 2),
    );
  }
  if (value.stderr) parts.push(`stderr:\n${value.stderr}`);
  for (const w of value.warnings) parts.push(`warning: ${w}`);
  const content: ContentBlock[] = [{ type: "text", text: parts.join("\n") || "(no output)" }];
  value.attachments.forEach((block, index) =>
    content.push(mediaBlock(block, value.runId, index, options.linkAbove ?? MEDIA_LINK_BYTES))
  );
  return {
    content,
    structuredContent: value as unknown as Record<string, unknown>,
    ...(value.ok ? {} : { isError: true }),
  };
}
