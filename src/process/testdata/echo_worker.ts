/**
 * Worker entry for `worker_client_test.ts`: echoes, hangs, throws, or (run as a process) writes
 * a line that is not a message on request.
 * @module
 */

interface Request {
  id: number;
  op: "echo" | "hang" | "throw" | "noise";
  value?: unknown;
}

const scope = globalThis as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent<Request>) => void) | null;
};

scope.onmessage = (event) => {
  const request = event.data;
  if (request.op === "echo") scope.postMessage({ id: request.id, value: request.value });
  if (request.op === "throw") throw new Error("worker broke");
  if (request.op === "noise") Deno.stdout.writeSync(new TextEncoder().encode("not json\n"));
  // "hang": never answers
};
