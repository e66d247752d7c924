/**
 * Content blocks per MCP protocol revision: a client only ever receives block types and fields
 * its negotiated revision defines. Older revisions get honest stand-ins: `structuredContent` as
 * a text block, a `resource_link` as an embedded resource keeping its name, title, description,
 * size and mime type, audio as a short text description.
 * @module
 */

/** Revisions in the order they were published; the SDK negotiates one of them. */
export const REVISIONS = [
  "2024-10-07",
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
];

/** The newest revision negotiated with `initialize` (the 2025 era's last). */
export const LATEST_LEGACY_REVISION = "2025-11-25";

/** Whether `revision` is `since` or later (unknown revisions count as the newest). */
export function atLeast(revision: string, since: string): boolean {
  const at = REVISIONS.indexOf(revision);
  return at === -1 || at >= REVISIONS.indexOf(since);
}

/** One content block as the gateway builds it (the newest revision's shape). */
export type ContentBlock = { type: string; [key: string]: unknown };

/** A `tools/call` result before adaptation. */
export interface ToolResultShape {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

const KB = 1024;

function describeSize(base64: string): string {
  const bytes = Math.floor(base64.length * 3 / 4);
  return bytes >= KB ? `${Math.round(bytes / KB)} KiB` : `${bytes} bytes`;
}

/** Fields of `annotations` each revision defines (`lastModified` came in 2025-06-18). */
function adaptAnnotations(annotations: unknown, revision: string): Record<string, unknown> {
  if (typeof annotations !== "object" || annotations === null) return {};
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (key === "lastModified" && !atLeast(revision, "2025-06-18")) continue;
    kept[key] = value;
  }
  return Object.keys(kept).length > 0 ? { annotations: kept } : {};
}

/** `_meta` on content blocks is defined from 2025-06-18; `title` too. */
function common(block: ContentBlock, revision: string): Record<string, unknown> {
  return {
    ...adaptAnnotations(block.annotations, revision),
    ...(atLeast(revision, "2025-06-18") && block._meta !== undefined ? { _meta: block._meta } : {}),
  };
}

/** Rewrites one block for `revision`; never answers a type the revision lacks. */
export function adaptBlock(block: ContentBlock, revision: string): ContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: String(block.text ?? ""), ...common(block, revision) };
    case "image":
      return {
        type: "image",
        data: String(block.data ?? ""),
        mimeType: String(block.mimeType ?? "application/octet-stream"),
        ...common(block, revision),
      };
    case "audio":
      if (atLeast(revision, "2025-03-26")) {
        return {
          type: "audio",
          data: String(block.data ?? ""),
          mimeType: String(block.mimeType ?? "application/octet-stream"),
          ...common(block, revision),
        };
      }
      return {
        type: "text",
        text: `[audio: ${String(block.mimeType ?? "unknown type")}, ${
          describeSize(String(block.data ?? ""))
        }; this client's protocol revision ${revision} cannot carry audio]`,
        ...common(block, revision),
      };
    case "resource_link": {
      if (atLeast(revision, "2025-06-18")) return { ...block };
      // An embedded resource that says what the link pointed at, honestly typed.
      const details = [
        `name: ${String(block.name ?? "")}`,
        ...(block.title ? [`title: ${String(block.title)}`] : []),
        ...(block.description ? [`description: ${String(block.description)}`] : []),
        ...(typeof block.size === "number" ? [`size: ${block.size} bytes`] : []),
        ...(block.mimeType ? [`mimeType: ${String(block.mimeType)}`] : []),
        `read it with resources/read uri ${String(block.uri)}`,
      ];
      return {
        type: "resource",
        resource: {
          uri: String(block.uri),
          mimeType: "text/plain",
          text: `Link to a resource (${details.join("; ")})`,
        },
        ...common(block, revision),
      };
    }
    case "resource": {
      const resource = typeof block.resource === "object" && block.resource !== null
        ? { ...block.resource as Record<string, unknown> }
        : {};
      if (!atLeast(revision, "2025-06-18")) delete resource._meta;
      return { type: "resource", resource, ...common(block, revision) };
    }
    default:
      return {
        type: "text",
        text:
          `[content block of type "${block.type}" that protocol revision ${revision} does not define]`,
      };
  }
}

/**
 * Adapts a whole tool result: blocks one by one, and below 2025-06-18 the structured content
 * becomes a JSON text block (the field did not exist yet).
 */
export function adaptToolResult(
  result: ToolResultShape,
  revision: string,
): Record<string, unknown> {
  const content = result.content.map((b) => adaptBlock(b, revision));
  const structured = result.structuredContent;
  if (structured !== undefined && !atLeast(revision, "2025-06-18")) {
    content.push({ type: "text", text: JSON.stringify(structured, null, 2) });
  }
  return {
    content,
    ...(structured !== undefined && atLeast(revision, "2025-06-18")
      ? { structuredContent: structured }
      : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(result._meta !== undefined ? { _meta: result._meta } : {}),
  };
}
