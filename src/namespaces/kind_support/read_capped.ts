/**
 * Reads an API's answer whole, up to a cap: the OpenAPI and GraphQL kinds hold each answer in
 * the gateway's memory before they decode it.
 * @module
 */

import { ToolCallError } from "../namespace.ts";

/** Answers larger than this are refused rather than held in the gateway's memory. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The whole body, or a `ToolError` once it passes {@linkcode MAX_ANSWER_BYTES}. */
export async function readCapped(response: Response, what: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  const tooLarge = () =>
    new ToolCallError(
      "ToolError",
      `${what} answered more than ${MAX_ANSWER_BYTES} bytes: refused (ask the API for less, e.g. a smaller page)`,
    );
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
