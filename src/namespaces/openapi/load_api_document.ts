/**
 * Reads an OpenAPI/Swagger document from a file or URL (remote copies cached in the data dir
 * with their ETag), parses JSON or YAML, and inlines external `$ref`s with a well-kept resolver.
 * @module
 */

import { createHash } from "node:crypto";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse as parseYaml } from "yaml";

/** A parsed API document plus what happened while loading it. */
export interface LoadedApiDocument {
  document: Record<string, unknown>;
  /** The file path or URL the document came from (relative server URLs resolve against it). */
  source: string;
  /** Problems that did not stop loading (e.g. a stale cached copy was used). */
  warnings: string[];
}

/** Where {@linkcode loadApiDocument} looks and caches. */
export interface LoadApiDocumentOptions {
  /** Directory a relative path is resolved against (the gateway root). */
  baseDir: string;
  /** Directory for cached remote documents. */
  cacheDir: string;
  signal?: AbortSignal;
}

/** A cached remote document. */
interface CachedDocument {
  url: string;
  etag: string | null;
  text: string;
  fetchedAt: string;
}

/**
 * Loads the document at `location` (a path relative to `baseDir`, or an http(s) URL). A URL is
 * fetched with `If-None-Match` against the cached copy; when the fetch fails and a copy exists,
 * the copy is used and a warning says so. Throws an `Error` naming the document when it cannot
 * be read or parsed.
 */
export async function loadApiDocument(
  location: string,
  options: LoadApiDocumentOptions,
): Promise<LoadedApiDocument> {
  const warnings: string[] = [];
  const remote = /^https?:\/\//i.test(location);
  const source = remote
    ? location
    : (isAbsolute(location) ? location : resolve(options.baseDir, location));
  let text: string;
  if (remote) {
    text = await fetchCached(location, options, warnings);
  } else {
    try {
      text = await Deno.readTextFile(source);
    } catch (error) {
      throw new Error(`Cannot read API document "${source}": ${messageOf(error)}`, {
        cause: error,
      });
    }
  }
  let document = parseDocument(text, source);
  if (hasExternalRef(document)) {
    // The resolver reads and fetches what the references name; internal ones stay references.
    try {
      const base = remote ? source : pathToFileURL(source).href;
      document = await SwaggerParser.bundle(
        base,
        document as unknown as Parameters<typeof SwaggerParser.bundle>[1],
        {},
      ) as unknown as Record<string, unknown>;
    } catch (error) {
      throw new Error(
        `Cannot resolve the external $refs of API document "${source}": ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
  return { document, source, warnings };
}

/** JSON when it looks like JSON, YAML otherwise; the root must be an object. */
export function parseDocument(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 });
  } catch (error) {
    throw new Error(`Cannot parse API document "${source}": ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`Cannot use API document "${source}": its top level is not an object`);
  }
  const record = value as Record<string, unknown>;
  if (typeof record.openapi !== "string" && record.swagger !== "2.0") {
    throw new Error(
      `Cannot use API document "${source}": it has neither "openapi": "3.x" nor "swagger": "2.0"`,
    );
  }
  return record;
}

/** Whether any `$ref` points outside the document. */
function hasExternalRef(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "$ref" && typeof child === "string" && !child.startsWith("#")) return true;
      if (typeof child === "object") stack.push(child);
    }
  }
  return false;
}

async function fetchCached(
  url: string,
  options: LoadApiDocumentOptions,
  warnings: string[],
): Promise<string> {
  const key = createHash("sha256").update(url).digest("hex").slice(0, 32);
  const file = join(options.cacheDir, "apis", `${key}.json`);
  let cached: CachedDocument | undefined;
  try {
    cached = JSON.parse(await Deno.readTextFile(file)) as CachedDocument;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      warnings.push(`Ignoring unreadable cached copy "${file}": ${messageOf(error)}`);
    }
  }
  try {
    const headers: Record<string, string> = { accept: "application/json, application/yaml, */*" };
    if (cached?.etag) headers["if-none-match"] = cached.etag;
    const response = await fetch(url, {
      headers,
      signal: options.signal ?? AbortSignal.timeout(30_000),
    });
    if (response.status === 304 && cached) {
      await response.body?.cancel();
      return cached.text;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status} ${response.statusText}`);
    }
    const text = await response.text();
    const entry: CachedDocument = {
      url,
      etag: response.headers.get("etag"),
      text,
      fetchedAt: new Date().toISOString(),
    };
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(`${file}.tmp`, JSON.stringify(entry));
    await Deno.rename(`${file}.tmp`, file);
    return text;
  } catch (error) {
    if (cached) {
      warnings.push(
        `Cannot fetch API document "${url}" (${
          messageOf(error)
        }): using the copy cached at ${cached.fetchedAt}`,
      );
      return cached.text;
    }
    throw new Error(`Cannot fetch API document "${url}": ${messageOf(error)}`, { cause: error });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
