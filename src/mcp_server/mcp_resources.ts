/**
 * Resources the gateway's MCP server offers: the LLM guide (`gateway://guide`), the generated
 * TypeScript per namespace (`gateway://types/NS`), media a run attached
 * (`gateway://runs/ID/attachments/N`), and every upstream's resources and templates under
 * `gateway://ns/NS/<upstream uri>`, so two upstreams' URIs can never collide.
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { type HostRoundParams, inputRequiredOf } from "./host_round.ts";
import type { GatewayCall } from "./gateway_call.ts";
import type { RunDocument } from "../protocol/run_document.ts";

/** Prefix of a namespaced upstream resource. */
export const UPSTREAM_PREFIX = "gateway://ns/";

/** A resource as `resources/list` answers it. */
export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A template as `resources/templates/list` answers it. */
export interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One content of a `resources/read` answer. */
export interface ReadContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

interface NamespaceSummary {
  name: string;
  identifier: string;
  kind: string;
  status: string;
  tools: number;
  prompts?: { name: string; description: string }[];
}

interface UpstreamResources {
  resources: Array<
    { namespace: string; uri: string; name: string; description?: string; mimeType?: string }
  >;
  templates: Array<
    {
      namespace: string;
      uriTemplate: string;
      name: string;
      description?: string;
      mimeType?: string;
    }
  >;
}

/** The namespaced URI of an upstream's resource. */
export function namespacedUri(namespace: string, uri: string): string {
  return `${UPSTREAM_PREFIX}${encodeURIComponent(namespace)}/${uri}`;
}

/** Splits a namespaced URI back into namespace and upstream URI; null when it is not one. */
export function splitNamespacedUri(uri: string): { namespace: string; uri: string } | null {
  if (!uri.startsWith(UPSTREAM_PREFIX)) return null;
  const rest = uri.slice(UPSTREAM_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return null;
  return { namespace: decodeURIComponent(rest.slice(0, slash)), uri: rest.slice(slash + 1) };
}

/** Gateway namespaces, as `namespaces` answers them. */
export async function namespaceSummaries(call: GatewayCall): Promise<NamespaceSummary[]> {
  return (await call("namespaces", {}) as { namespaces: NamespaceSummary[] }).namespaces;
}

/** Every resource: the guide, types per namespace, then the upstreams'. */
export async function listResources(call: GatewayCall): Promise<ListedResource[]> {
  const own: ListedResource[] = [
    {
      uri: "gateway://guide",
      name: "guide",
      title: "How to use this gateway (LLM guide)",
      description: "Namespaces present now, limits in force and how to write a script",
      mimeType: "text/markdown",
    },
    {
      uri: "gateway://types",
      name: "types",
      title: "Script globals",
      description: "TypeScript declarations of every global a script sees (tools, search …)",
      mimeType: "text/x-typescript",
    },
  ];
  for (const ns of await namespaceSummaries(call)) {
    own.push({
      uri: `gateway://types/${encodeURIComponent(ns.name)}`,
      name: `types-${ns.name}`,
      title: `Types of namespace ${ns.name}`,
      description:
        `TypeScript of tools.${ns.identifier} (${ns.kind}, ${ns.status}, ${ns.tools} tools)`,
      mimeType: "text/x-typescript",
    });
  }
  const upstream = await call("upstream.resources", {}) as UpstreamResources;
  for (const r of upstream.resources) {
    own.push({
      uri: namespacedUri(r.namespace, r.uri),
      name: `${r.namespace}/${r.name}`,
      description: r.description ?? `${r.name} from namespace ${r.namespace}`,
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    });
  }
  return own;
}

/** Every template: types by namespace, run attachments, then the upstreams'. */
export async function listTemplates(call: GatewayCall): Promise<ListedTemplate[]> {
  const own: ListedTemplate[] = [
    {
      uriTemplate: "gateway://types/{namespace}",
      name: "types-by-namespace",
      description: "TypeScript of one namespace's tools",
      mimeType: "text/x-typescript",
    },
    {
      uriTemplate: "gateway://runs/{runId}/attachments/{index}",
      name: "run-attachment",
      description: "An image or audio a run attached (large media is linked, not inlined)",
    },
  ];
  const upstream = await call("upstream.resources", {}) as UpstreamResources;
  for (const t of upstream.templates) {
    own.push({
      uriTemplate: namespacedUri(t.namespace, t.uriTemplate),
      name: `${t.namespace}/${t.name}`,
      description: t.description ?? `${t.name} from namespace ${t.namespace}`,
      ...(t.mimeType ? { mimeType: t.mimeType } : {}),
    });
  }
  return own;
}

/** A resource URI nobody serves: a JSON-RPC error naming the URI and what exists. */
export class UnknownResourceError extends Error {
  /** The URI the client asked for. */
  readonly uri: string;
  constructor(uri: string, why?: string) {
    super(
      why
        ? `Unknown resource "${uri}": ${why}`
        : `Unknown resource "${uri}": resources/list shows gateway://guide, gateway://types/NS, ` +
          `gateway://runs/ID/attachments/N and upstream resources under ${UPSTREAM_PREFIX}NS/…`,
    );
    this.name = "UnknownResourceError";
    this.uri = uri;
  }
}

/**
 * Reads one resource. `host` (a surface that passes input) goes with an upstream's read, whose
 * input-required answer then comes back as it is.
 */
export async function readResource(
  call: GatewayCall,
  uri: string,
  host?: HostRoundParams,
): Promise<ReadContent[] | InputRequiredResult> {
  if (uri === "gateway://guide") {
    const guide = await call("guide", { for: "mcp" }) as { text: string };
    return [{ uri, mimeType: "text/markdown", text: guide.text }];
  }
  if (uri === "gateway://types" || uri.startsWith("gateway://types/")) {
    const ns = uri === "gateway://types"
      ? []
      : [decodeURIComponent(uri.slice("gateway://types/".length))];
    const answer = await call("types", ns.length ? { namespaces: ns } : {}) as { types: string };
    return [{ uri, mimeType: "text/x-typescript", text: answer.types }];
  }
  const attachment = uri.match(/^gateway:\/\/runs\/([^/]+)\/attachments\/(\d+)$/);
  if (attachment) {
    const runId = decodeURIComponent(attachment[1] ?? "");
    const doc = await call("wait", { runId }) as RunDocument;
    const index = Number(attachment[2]);
    const block = doc.attachments?.[index];
    if (!block || (block.type !== "image" && block.type !== "audio")) {
      throw new UnknownResourceError(
        uri,
        doc.attachments?.length
          ? `run ${runId} attached ${doc.attachments.length} block(s); index ${index} is not an image or audio`
          : `run ${runId} has no attachments the gateway still holds (media is kept in memory for recent runs only): rerun it`,
      );
    }
    return [{ uri, mimeType: block.mimeType, blob: block.data }];
  }
  const upstream = splitNamespacedUri(uri);
  if (!upstream) throw new UnknownResourceError(uri);
  const answer = await call("upstream.read", {
    ...upstream,
    ...(host === undefined ? {} : { host }),
  }) as { contents: ReadContent[] };
  const asked = inputRequiredOf(answer);
  if (asked !== null) return asked;
  return answer.contents.map((c) => ({ ...c, uri: namespacedUri(upstream.namespace, c.uri) }));
}
