/**
 * What an API document's `$ref`s may read, decided here and not by the resolver's defaults: a
 * document fetched over HTTP resolves references only at its own origin (no local file, no
 * other host: nothing the gateway would not fetch for it anyway); a document on disk resolves
 * files only inside the root (symlinks resolved first) and URLs as the user who keeps it there
 * wrote them.
 * @module
 */

import { Buffer } from "node:buffer";
import { isAbsolute, relative, sep as SEP } from "node:path";
import { fileURLToPath } from "node:url";

/** Most bytes one `$ref` target may have. */
const MAX_REF_BYTES = 32 * 1024 * 1024;
const REF_TIMEOUT_MS = 30_000;

/**
 * What a document's `$ref`s may reach: a remote document only its own origin; a local one files
 * inside the root, and URLs.
 */
export type RefReach = { origin: string } | { root: string };

/**
 * The resolvers the `$ref` parser reads with, replacing its own: every file and URL a reference
 * names passes {@linkcode RefReach} first, and a refusal says why (it becomes the warning of a
 * reference typed unknown).
 */
export function refResolvers(reach: RefReach): Record<string, unknown> {
  const isUrl = (url: string) => /^https?:/i.test(url);
  return {
    file: {
      order: 100,
      canRead: (file: { url: string }) => !isUrl(file.url),
      read: async (file: { url: string }) => {
        if ("origin" in reach) {
          throw new Error(
            `a remote API document's $refs read no local files ("${file.url}" is not read)`,
          );
        }
        const path = /^file:/i.test(file.url) ? fileURLToPath(file.url) : file.url;
        if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
          throw new Error(`"${file.url}" is neither a file nor an http(s) URL`);
        }
        const root = await Deno.realPath(reach.root);
        const real = await Deno.realPath(path);
        const inside = relative(root, real);
        if (inside === ".." || inside.startsWith(`..${SEP}`) || isAbsolute(inside)) {
          throw new Error(
            `"${real}" is outside the root "${root}": a local API document's $refs read only files inside the root (put the files it refers to under the root)`,
          );
        }
        // The parsers take text from a Buffer (a bare Uint8Array reads as no text at all).
        return Buffer.from(await Deno.readFile(real));
      },
    },
    http: {
      order: 200,
      canRead: (file: { url: string }) => isUrl(file.url),
      read: async (file: { url: string }) => {
        const url = new URL(file.url);
        if ("origin" in reach && url.origin !== reach.origin) {
          throw new Error(
            `a remote API document's $refs resolve only at its own origin "${reach.origin}" ("${url.href}" is not fetched)`,
          );
        }
        const response = await fetch(url, {
          redirect: "error",
          signal: AbortSignal.timeout(REF_TIMEOUT_MS),
        });
        if (!response.ok) {
          await response.body?.cancel();
          throw new Error(`HTTP ${response.status} ${response.statusText}`);
        }
        const bytes = new Uint8Array(await response.arrayBuffer());
        if (bytes.length > MAX_REF_BYTES) {
          throw new Error(`it is larger than ${MAX_REF_BYTES} bytes`);
        }
        return Buffer.from(bytes);
      },
    },
  };
}
