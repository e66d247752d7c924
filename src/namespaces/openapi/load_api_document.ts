/**
 * Reads an OpenAPI/Swagger document from a file or URL (remote copies cached in the data dir
 * with their ETag), parses JSON or YAML, and inlines external `$ref`s with a well-kept resolver.
 * What a `$ref` may read is decided by `api_ref_resolvers.ts`, never by the resolver's defaults.
 * @module
 */

import { createHash } from "node:crypto";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { $RefParser } from "@apidevtools/json-schema-ref-parser";
import { parse as parseYaml } from "yaml";
import { messageOf } from "../../protocol/message_of.ts";
import { fetchFailureText } from "../kind_support/fetch_failure.ts";
import { type RefReach, refResolvers } from "./api_ref_resolvers.ts";

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
  /** The document with its external references inlined, when it had any. */
  bundled?: string;
  /** What inlining them noted (references that could not be read). */
  bundleWarnings?: string[];
  /** The rules `bundled` was made under; a copy made under other rules is bundled again. */
  refRules?: number;
}

/**
 * Version of the rules for what a `$ref` may read. A cached bundle made under other rules (an
 * older gateway that read local files for remote documents) is never used, and is dropped.
 */
const REF_RULES = 2;

/** What {@linkcode fetchCached} found: the entry, where it lives, and whether it is new. */
interface CacheHit {
  entry: CachedDocument;
  file: string;
  fresh: boolean;
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
  let cache: CacheHit | undefined;
  if (remote) {
    cache = await fetchCached(location, options, warnings);
    // An unchanged remote document is used as it was bundled, so its external references need
    // not be reachable now.
    if (
      !cache.fresh && cache.entry.bundled !== undefined && cache.entry.refRules === REF_RULES
    ) {
      warnings.push(...(cache.entry.bundleWarnings ?? []));
      return { document: JSON.parse(cache.entry.bundled), source, warnings };
    }
    text = cache.entry.text;
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
    const base = remote ? source : pathToFileURL(source).href;
    const bundleWarnings: string[] = [];
    document = await inlineExternalRefs(document, {
      base,
      reach: remote ? { origin: new URL(source).origin } : { root: options.baseDir },
      warnings: bundleWarnings,
      source,
    });
    warnings.push(...bundleWarnings);
    if (cache !== undefined) {
      await writeCache(cache.file, {
        ...cache.entry,
        bundled: JSON.stringify(document),
        bundleWarnings,
        refRules: REF_RULES,
      });
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

/** Where external targets are kept inside the document (any internal pointer works). */
const EXTERNAL_KEY = "x-gateway-external";

/**
 * Reads every external `$ref` target with the resolver (files and URLs, relative to the
 * document), copies each target once under `x-gateway-external`, and points the references
 * there, so the rest of the gateway only meets internal references. Circular references between
 * files stay circular. A target that cannot be read keeps its reference (typed unknown) and
 * adds a warning. (The resolver's own `bundle` does the same but re-walks every internal
 * reference, which takes seconds on a document of GitHub's size.)
 */
async function inlineExternalRefs(
  document: Record<string, unknown>,
  options: { base: string; reach: RefReach; warnings: string[]; source: string },
): Promise<Record<string, unknown>> {
  // The resolver sees only the external references (as a stub standing in for the document),
  // so it reads the files they name without walking the document's own references.
  const external = new Set<string>();
  walkRefs(document, (ref) => {
    if (!ref.startsWith("#")) external.add(ref);
  });
  const stub = { refs: [...external].map((ref) => ({ $ref: ref })) };
  const parser = new $RefParser();
  try {
    await parser.resolve(
      options.base,
      stub as unknown as Parameters<typeof parser.resolve>[1],
      {
        continueOnError: true,
        resolve: refResolvers(options.reach),
      } as Parameters<typeof parser.resolve>[2],
    );
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "JSONParserErrorGroup") {
      throw new Error(
        `Cannot resolve the external $refs of API document "${options.source}": ${
          messageOf(error)
        }`,
        { cause: error },
      );
    }
  }
  const hoisted: Record<string, unknown> = {};
  const keys = new Map<string, string>();
  const unreadable = new Set<string>();
  const fileOf = (url: string) => url.split("#")[0]!;
  const keyFor = (absolute: string): string | undefined => {
    const known = keys.get(absolute);
    if (known !== undefined) return known;
    let value: unknown;
    try {
      value = parser.$refs.get(absolute);
    } catch (error) {
      if (!unreadable.has(absolute)) {
        unreadable.add(absolute);
        options.warnings.push(
          `loosened: $ref "${absolute}" cannot be read (${
            messageOf(error).split("\n")[0]
          }); typed unknown`,
        );
      }
      return undefined;
    }
    const stem = (absolute.split("#")[1] ?? "").split("/").filter((p) => p !== "").at(-1) ??
      fileOf(absolute).split("/").at(-1)!.replace(/\.[a-z]+$/i, "");
    let key = stem.replace(/[^A-Za-z0-9_-]+/g, "_") || "external";
    for (let n = 2; key in hoisted; n++) key = `${stem}_${n}`;
    keys.set(absolute, key);
    hoisted[key] = null; // reserved first, so a cycle back to it finds the key
    hoisted[key] = copy(value, fileOf(absolute));
    return key;
  };
  /** A reference found in file `file`, pointed at the document or at a hoisted copy. */
  const pointAt = (ref: string, file: string): string => {
    const absolute = new URL(ref, file).href;
    if (fileOf(absolute) === fileOf(options.base)) return `#${absolute.split("#")[1] ?? ""}`;
    const key = keyFor(absolute);
    return key === undefined ? ref : `#/${EXTERNAL_KEY}/${key}`;
  };
  /** A deep copy of a value from another file, its references rewritten. */
  const copy = (node: unknown, file: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => copy(item, file));
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === "$ref" && typeof value === "string"
        ? pointAt(value, file)
        : copy(value, file);
    }
    return out;
  };
  // The document itself is rewritten in place: only its external references change.
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === "string" && !record.$ref.startsWith("#")) {
      record.$ref = pointAt(record.$ref, options.base);
    }
    for (const value of Object.values(record)) if (typeof value === "object") stack.push(value);
  }
  if (Object.keys(hoisted).length > 0) document[EXTERNAL_KEY] = hoisted;
  return document;
}

/** Calls `visit` with every `$ref` string in `value`. */
function walkRefs(value: unknown, visit: (ref: string) => void): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "$ref" && typeof child === "string") visit(child);
      else if (typeof child === "object") stack.push(child);
    }
  }
}

/** Whether any `$ref` points outside the document. */
function hasExternalRef(value: unknown): boolean {
  let found = false;
  walkRefs(value, (ref) => {
    if (!ref.startsWith("#")) found = true;
  });
  return found;
}

async function fetchCached(
  url: string,
  options: LoadApiDocumentOptions,
  warnings: string[],
): Promise<CacheHit> {
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
  if (cached !== undefined && cached.bundled !== undefined && cached.refRules !== REF_RULES) {
    // Bundled under other rules: what it inlined may be what these rules refuse to read.
    const { bundled: _bundled, bundleWarnings: _warnings, ...rest } = cached;
    cached = rest;
    await writeCache(file, cached);
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
      return { entry: cached, file, fresh: false };
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
    await writeCache(file, entry);
    return { entry, file, fresh: true };
  } catch (error) {
    if (cached) {
      warnings.push(
        `Cannot fetch API document "${url}" (${
          fetchFailureText(error, new URL(url))
        }): using the copy cached at ${cached.fetchedAt}`,
      );
      return { entry: cached, file, fresh: false };
    }
    throw new Error(
      `Cannot fetch API document "${url}": ${fetchFailureText(error, new URL(url))}`,
      {
        cause: error,
      },
    );
  }
}

async function writeCache(file: string, entry: CachedDocument): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true });
  await Deno.writeTextFile(`${file}.tmp`, JSON.stringify(entry));
  await Deno.rename(`${file}.tmp`, file);
}
