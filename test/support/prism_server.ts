/**
 * Starts Stoplight Prism (installed under test/servers) as a validating mock server for an
 * OpenAPI document, on a free loopback port, and stops it by pid.
 * @module
 */

import { join } from "node:path";
import { REPO } from "./gateway_harness.ts";
import { pollUntil } from "./poll_until.ts";

/** The Prism CLI entry point. */
export const PRISM = join(REPO, "test/servers/node_modules/@stoplight/prism-cli/dist/index.js");
/** The real-world documents of `@readme/oas-examples`. */
export const OAS_EXAMPLES = join(REPO, "test/servers/node_modules/@readme/oas-examples");
/** GitHub's REST API document (`@octokit/openapi`). */
export const GITHUB_SPEC = join(
  REPO,
  "test/servers/node_modules/@octokit/openapi/generated/api.github.com.json",
);

/** A running Prism mock. */
export interface PrismServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Output so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts Prism on `spec` and resolves once it answers. */
export async function startPrism(spec: string, options: { timeoutMs?: number } = {}) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const child = new Deno.Command("node", {
    args: [PRISM, "mock", "-h", "127.0.0.1", "-p", String(port), spec],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const server: PrismServer = {
    url: `http://127.0.0.1:${port}`,
    output: () => text,
    stop: async () => {
      if (!exited) child.kill("SIGTERM");
      await status;
      await drained;
    },
  };
  try {
    await pollUntil(
      `Prism to listen on "${spec}"`,
      () => Promise.resolve(exited || /Prism is listening/.test(text) ? true : undefined),
      { timeoutMs: options.timeoutMs ?? 180_000, last: () => text.slice(-2000) },
    );
    if (exited) throw new Error(`Prism exited on "${spec}": ${text.slice(-2000)}`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
