/**
 * The URL of one operation call: path parameters as single encoded segments checked against
 * the operation's template (no `.`/`..`, no way to another path), and the query string in the
 * parameter's style.
 * @module
 */

import { ToolCallError } from "../namespace.ts";
import type { ApiOperation, ApiParameter } from "./api_operations.ts";

/**
 * Base URL + path with path parameters filled in + query string. A path parameter becomes one
 * segment (`/` and every other reserved character encoded); one that is empty, `.`, `..` or
 * holds such a segment is refused, and the final path is checked against the operation's
 * template, so the request goes to the operation policy approved and to no other path.
 * Throws `InvalidToolInput` naming the parameter.
 */
export function buildUrl(
  baseUrl: string,
  operation: ApiOperation,
  args: Record<string, unknown>,
  what = `${operation.method.toUpperCase()} ${operation.path}`,
): string {
  const base = baseUrl.replace(/\/+$/, "");
  const filled: string[] = [];
  // The template with a plain token per parameter, parsed as the final URL will be, so the
  // path sent can be compared with it segment for segment.
  const tokens = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const parameter = operation.parameters.find((p) => p.in === "path" && p.name === name);
    const value = parameter === undefined ? undefined : args[parameter.key];
    if (value === undefined) {
      throw new ToolCallError(
        "InvalidToolInput",
        `${what}: path parameter "${name}" is missing`,
      );
    }
    filled.push(pathSegment(name, serialiseSimple(value), what));
    return `gatewaypathparameter${filled.length - 1}x`;
  });
  const template = new URL(`${base}${tokens}`).pathname;
  const expected = template.replace(
    /gatewaypathparameter(\d+)x/g,
    (_match, index: string) => filled[Number(index)]!,
  );
  let next = 0;
  const path = operation.path.replace(/\{([^}]+)\}/g, () => filled[next++]!);
  const query = new URLSearchParams();
  for (const parameter of operation.parameters) {
    const value = args[parameter.key];
    if (parameter.in !== "query" || value === undefined) continue;
    appendQuery(query, parameter, value);
  }
  const text = query.toString();
  const url = `${base}${path}${text === "" ? "" : `?${text}`}`;
  const sent = new URL(url).pathname;
  if (sent !== expected) {
    throw new ToolCallError(
      "InvalidToolInput",
      `${what}: the path would be sent as "${sent}", not as the operation's "${expected}": refused`,
    );
  }
  return url;
}

/** One path parameter as one encoded segment; refuses a value that would change the path. */
function pathSegment(name: string, text: string, what: string): string {
  if (text === "") {
    throw new ToolCallError("InvalidToolInput", `${what}: path parameter "${name}" is empty`);
  }
  if (text.split(/[/\\]/).some((segment) => segment === "." || segment === "..")) {
    throw new ToolCallError(
      "InvalidToolInput",
      `${what}: path parameter "${name}" is ${
        JSON.stringify(text)
      }: "." and ".." (alone or between slashes) would send the request to another path, so they are refused`,
    );
  }
  return encodeURIComponent(text);
}

function appendQuery(query: URLSearchParams, parameter: ApiParameter, value: unknown): void {
  if (Array.isArray(value)) {
    if (parameter.explode) {
      for (const item of value) query.append(parameter.name, scalar(item));
      return;
    }
    const separator = { ssv: " ", spaceDelimited: " ", tsv: "\t", pipes: "|", pipeDelimited: "|" }[
      parameter.style
    ] ?? ",";
    query.append(parameter.name, value.map(scalar).join(separator));
    return;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (parameter.style === "deepObject") {
      for (const [key, item] of entries) query.append(`${parameter.name}[${key}]`, scalar(item));
    } else if (parameter.explode) {
      for (const [key, item] of entries) query.append(key, scalar(item));
    } else {
      query.append(parameter.name, entries.flatMap(([key, item]) => [key, scalar(item)]).join(","));
    }
    return;
  }
  query.append(parameter.name, scalar(value));
}

/** A value in the `simple` style (arrays and objects comma-joined). */
export function serialiseSimple(value: unknown): string {
  if (Array.isArray(value)) return value.map(scalar).join(",");
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => [key, scalar(item)]).join(",");
  }
  return scalar(value);
}

/** One value as text: strings as they are, objects as JSON. */
export function scalar(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null) return "null";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
