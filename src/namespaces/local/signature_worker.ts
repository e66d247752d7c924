/**
 * Web Worker entry that runs ts-morph signature extraction off the server's event loop. Speaks
 * {@linkcode SignatureWorkerRequest} / {@linkcode SignatureWorkerResponse} with its parent.
 * @module
 */

import type { ExtractionOutcome, SignatureExtractor } from "./extract_signatures.ts";

/** Asks the worker to read one module's text. */
export interface SignatureWorkerRequest {
  id: number;
  text: string;
}

/** The worker's answer: an outcome, or `crash` when extraction itself broke (a bug, not input). */
export type SignatureWorkerResponse =
  | { id: number; outcome: ExtractionOutcome }
  | { id: number; crash: string };

/** The part of the worker global this entry uses (the file is type-checked with window libs). */
interface WorkerScope {
  postMessage(message: SignatureWorkerResponse): void;
  addEventListener(type: "message", listener: (event: MessageEvent<unknown>) => void): void;
}

const scope = globalThis as unknown as WorkerScope;
// ts-morph is imported here, lazily, and nowhere else: a warm cache never pays for it.
const extractor: Promise<SignatureExtractor> = import("./extract_signatures.ts").then(
  (module) => new module.SignatureExtractor(),
);

scope.addEventListener("message", (event) => {
  const request = event.data as SignatureWorkerRequest;
  extractor
    .then((e) => scope.postMessage({ id: request.id, outcome: e.extract(request.text) }))
    .catch((error: unknown) => {
      const crash = error instanceof Error ? (error.stack ?? error.message) : String(error);
      scope.postMessage({ id: request.id, crash });
    });
});
