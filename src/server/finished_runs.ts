/**
 * Finished runs' documents, kept briefly so `wait` after a run's end still answers.
 * @module
 */

import type { RunDocument } from "../protocol/run_document.ts";

/** How many finished runs are remembered by default. */
export const FINISHED_KEEP = 200;

/** The last `keep` finished runs' documents, oldest dropped first. */
export class FinishedRuns {
  readonly #keep: number;
  readonly #documents = new Map<string, RunDocument>();

  constructor(keep = FINISHED_KEEP) {
    this.#keep = keep;
  }

  /** Remembers a finished run, forgetting the oldest beyond the limit. */
  add(document: RunDocument): void {
    this.#documents.set(document.runId, document);
    if (this.#documents.size > this.#keep) {
      const oldest = this.#documents.keys().next().value;
      if (oldest !== undefined) this.#documents.delete(oldest);
    }
  }

  /** A finished run's document, while it is still remembered. */
  get(runId: string): RunDocument | undefined {
    return this.#documents.get(runId);
  }
}
