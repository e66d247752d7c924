/**
 * What went wrong when an HTTP request to an API got no answer, in words: `fetch` rejects with
 * "fetch failed" and keeps the reason in its `cause` ("tcp connect error: Connection refused
 * (os error 111)"); a person needs "connection refused 127.0.0.1:4010".
 * @module
 */

import { messageOf } from "../../protocol/message_of.ts";

/** The messages of `error` and its causes, outermost first. */
function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    messages.push(messageOf(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages;
}

/** `host:port` of `url`, with the scheme's default port when it names none. */
function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/**
 * Why a request to `url` failed before any answer: the underlying cause named ("connection
 * refused 127.0.0.1:4010", "cannot resolve host \"api.example\"", "connection reset by …",
 * a TLS error), or the innermost cause's own message.
 *
 * @example
 * ```ts
 * import { fetchFailureText } from "./fetch_failure.ts";
 * import assert from "node:assert/strict";
 * const error = new TypeError("fetch failed", {
 *   cause: new Error("error sending request for url (http://127.0.0.1:4010/pets): client error (Connect): tcp connect error: Connection refused (os error 111)"),
 * });
 * assert.equal(
 *   fetchFailureText(error, new URL("http://127.0.0.1:4010/pets")),
 *   "connection refused 127.0.0.1:4010 (nothing listens there: is the API running?)",
 * );
 * ```
 */
export function fetchFailureText(error: unknown, url: URL): string {
  const chain = causeChain(error);
  const all = chain.join(" | ");
  const where = hostPort(url);
  if (/connection refused|ECONNREFUSED/i.test(all)) {
    return `connection refused ${where} (nothing listens there: is the API running?)`;
  }
  if (/dns error|failed to lookup address|ENOTFOUND|Name or service not known/i.test(all)) {
    return `cannot resolve host "${url.hostname}" (DNS)`;
  }
  if (/connection reset|ECONNRESET/i.test(all)) return `connection reset by ${where}`;
  if (/network is unreachable|ENETUNREACH|no route to host|EHOSTUNREACH/i.test(all)) {
    return `${where} cannot be reached (no route to it)`;
  }
  if (/certificate|tls|ssl/i.test(all)) {
    return `TLS with ${where} failed: ${innermost(chain)}`;
  }
  return innermost(chain);
}

/** The innermost message, without the request's URL that callers name already. */
function innermost(chain: string[]): string {
  const last = chain[chain.length - 1] ?? "fetch failed";
  return last.replace(/^error sending request for url \([^)]*\): /, "");
}
