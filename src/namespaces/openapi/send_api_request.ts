/**
 * Turns one validated operation call into an HTTP request (path, query, headers, body in the
 * operation's content type), sends it with the call's limits, follows redirects only within
 * the API's host, and turns the answer into a value or a `ToolError`.
 * @module
 */

import { Buffer } from "node:buffer";
import {
  ToolCallError,
  type ToolCallOptions,
  type ToolCallResult,
  type ToolSecurity,
} from "../namespace.ts";
import type { ApiOperation } from "./api_operations.ts";
import { buildUrl, scalar, serialiseSimple } from "./build_api_url.ts";
import { readCapped } from "../kind_support/read_capped.ts";
import { fetchFailureText } from "../kind_support/fetch_failure.ts";

/** Error bodies are cut to this many characters in messages. */
const MAX_ERROR_TEXT = 2_000;
/** Raw bodies kept on the result or error envelope. */
const MAX_RAW_TEXT = 65_536;
const MAX_REDIRECTS = 5;

/** Where and how a namespace's requests go. */
export interface ApiTarget {
  /** The namespace name, for messages. */
  namespace: string;
  /** Base URL the operation path is appended to. */
  baseUrl: string;
  /** Configured headers (already `${env:}`-expanded). */
  headers: Record<string, string>;
}

/** One request built from an operation call: what policy judges and what is sent. */
export interface ApiRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: BodyInit | undefined;
  /** The operation and its template, for messages. */
  what: string;
  /** What the operation needs to be allowed, named when the API answers 401 or 403. */
  security?: ToolSecurity;
}

/**
 * Builds the request of `operation` with `args` (already validated) to `target`: the path
 * filled in and checked against the operation's template (see {@linkcode buildUrl}), query,
 * headers and body. Throws `InvalidToolInput` for a path parameter that would change the path.
 */
export function buildApiRequest(
  target: ApiTarget,
  operation: ApiOperation,
  args: Record<string, unknown>,
  security?: ToolSecurity,
): ApiRequest {
  const what =
    `"${target.namespace}.${operation.name}" (${operation.method.toUpperCase()} ${operation.path})`;
  const url = new URL(buildUrl(target.baseUrl, operation, args, what));
  const headers = new Headers(target.headers);
  for (const parameter of operation.parameters) {
    const value = args[parameter.key];
    if (parameter.in === "header" && value !== undefined) {
      headers.set(parameter.name, serialiseSimple(value));
    }
  }
  let body: BodyInit | undefined;
  if (operation.body !== undefined && args[operation.body.key] !== undefined) {
    body = encodeBody(operation.body.contentType, args[operation.body.key], headers);
  }
  if (!headers.has("accept")) headers.set("accept", "application/json, */*;q=0.8");
  return {
    method: operation.method.toUpperCase(),
    url,
    headers,
    body,
    what,
    ...(security !== undefined ? { security } : {}),
  };
}

/**
 * Builds (see {@linkcode buildApiRequest}) and sends `operation` with `args` to `target`.
 * Rejects with a {@linkcode ToolCallError} as {@linkcode sendBuiltRequest} does.
 */
export async function sendApiRequest(
  target: ApiTarget,
  operation: ApiOperation,
  args: Record<string, unknown>,
  options: ToolCallOptions,
): Promise<ToolCallResult> {
  return await sendBuiltRequest(target, buildApiRequest(target, operation, args), options);
}

/**
 * Sends a built request with the call's limits, following redirects only within the API's
 * host. Rejects with a {@linkcode ToolCallError}: `ToolError` for a non-2xx answer (status,
 * problem details or body text, operation), a refused redirect or a network failure;
 * `ToolTimeout`; `Cancelled`.
 */
export async function sendBuiltRequest(
  target: ApiTarget,
  request: ApiRequest,
  options: ToolCallOptions,
): Promise<ToolCallResult> {
  const { what, headers } = request;
  let { url, body, method } = request;
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) throw new ToolCallError("Cancelled", `Call to ${what} was cancelled`);
  options.signal.addEventListener("abort", forwardAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  }, Math.min(options.callTimeoutMs, options.callMaxMs));
  const origin = new URL(target.baseUrl).host;
  try {
    for (let hop = 0;; hop++) {
      const response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
        signal: controller.signal,
      });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        const next = new URL(response.headers.get("location")!, url);
        if (next.host !== origin) {
          throw new ToolCallError(
            "ToolError",
            `${what} was redirected to another host, "${next.host}": not followed (only "${origin}" is allowed)`,
          );
        }
        if (hop >= MAX_REDIRECTS) {
          throw new ToolCallError(
            "ToolError",
            `${what} was redirected more than ${MAX_REDIRECTS} times`,
          );
        }
        if (
          response.status === 303 ||
          ((response.status === 301 || response.status === 302) && method === "POST")
        ) {
          method = "GET";
          body = undefined;
          headers.delete("content-type");
        }
        url = next;
        continue;
      }
      return await readAnswer(response, what, request.security);
    }
  } catch (error) {
    if (error instanceof ToolCallError) throw error;
    if (options.signal.aborted) {
      throw new ToolCallError("Cancelled", `Call to ${what} was cancelled`, { cause: error });
    }
    if (timedOut) {
      throw new ToolCallError(
        "ToolTimeout",
        `${what} timed out: no answer within ${
          Math.min(options.callTimeoutMs, options.callMaxMs)
        } ms`,
        { cause: error },
      );
    }
    throw new ToolCallError("ToolError", `${what} failed: ${fetchFailureText(error, url)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", forwardAbort);
  }
}

/** The body in `contentType`; sets the content-type header (multipart sets its own boundary). */
function encodeBody(contentType: string, value: unknown, headers: Headers): BodyInit {
  if (contentType === "application/x-www-form-urlencoded") {
    headers.set("content-type", contentType);
    const form = new URLSearchParams();
    for (const [key, item] of Object.entries(asObject(value))) {
      if (item === undefined) continue;
      if (Array.isArray(item)) { for (const one of item) form.append(key, scalar(one)); }
      else form.append(key, scalar(item));
    }
    return form;
  }
  if (contentType === "multipart/form-data") {
    const form = new FormData();
    for (const [key, item] of Object.entries(asObject(value))) {
      if (item === undefined) continue;
      if (Array.isArray(item)) { for (const one of item) form.append(key, scalar(one)); }
      else form.append(key, scalar(item));
    }
    return form;
  }
  headers.set("content-type", contentType);
  if (/json/.test(contentType)) return JSON.stringify(value);
  return typeof value === "string" ? value : JSON.stringify(value);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : { value };
}

/** A 2xx answer's value (JSON parsed, text as text, binary as base64), or a `ToolError`. */
async function readAnswer(
  response: Response,
  what: string,
  security: ToolSecurity | undefined,
): Promise<ToolCallResult> {
  const contentType = response.headers.get("content-type") ?? "";
  const bytes = await readCapped(response, what);
  const textual = contentType === "" || /json|text|xml|yaml|javascript|html/i.test(contentType);
  const text = textual ? new TextDecoder().decode(bytes) : "";
  if (response.status < 200 || response.status >= 300) {
    const detail = textual ? problemText(text) : `${bytes.length} bytes of ${contentType}`;
    throw new ToolCallError(
      "ToolError",
      `${what} answered ${response.status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${detail === "" ? "(empty body)" : detail}${refusalHint(response.status, security)}`,
      {
        raw: {
          content: [{ type: "text", text: text.slice(0, MAX_RAW_TEXT) }],
          isError: true,
          status: response.status,
          contentType,
        },
      },
    );
  }
  let value: unknown;
  if (bytes.length === 0) value = null;
  else if (/json/i.test(contentType)) {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  } else value = textual ? text : Buffer.from(bytes).toString("base64");
  return {
    value,
    raw: {
      content: [{ type: "text", text: textual ? text.slice(0, MAX_RAW_TEXT) : "" }],
      structuredContent: value,
      status: response.status,
      contentType,
    },
  };
}

/**
 * For a 401 or 403 from an operation with security requirements: what it needs, and either the
 * config to add or, when the credential was sent, that the API refused it.
 */
function refusalHint(status: number, security: ToolSecurity | undefined): string {
  if ((status !== 401 && status !== 403) || security === undefined) return "";
  return security.satisfied
    ? `; it needs ${security.needs}, sent from ${security.by}: the API refused that credential (check its value${
      /scopes/.test(security.needs) ? " and scopes" : ""
    })`
    : `; it needs ${security.needs}, which the gateway does not send: ${security.fix}`;
}

/** Problem details (`title`, `detail`) or an error message field when the body has them, else the text (capped). */
function problemText(text: string): string {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed === "object" && parsed !== null) {
      const parts = ["title", "detail", "message", "error", "error_description"]
        .map((key) => parsed[key])
        .filter((v): v is string => typeof v === "string" && v.trim() !== "");
      if (parts.length > 0) return cap([...new Set(parts)].join(": "));
    }
  } catch {
    // not JSON: the text itself
  }
  return cap(text.trim());
}

function cap(text: string): string {
  return text.length > MAX_ERROR_TEXT
    ? `${text.slice(0, MAX_ERROR_TEXT)}… (${text.length} characters)`
    : text;
}
