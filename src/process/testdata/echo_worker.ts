/** Worker entry for `worker_client_test.ts`: echoes, hangs, or throws on request. @module */

interface Request {
  id: number;
  op: "echo" | "hang" | "throw";
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
  // "hang": never answers
};
