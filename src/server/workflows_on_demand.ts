/**
 * The workflow service, loaded on first use: the YAML parser, Handlebars and the workflow engine
 * stay out of a server that runs no workflow (idle memory and start time).
 * @module
 */

import type { WorkflowSessionStore } from "../store/gateway_store.ts";
import type { WorkflowService } from "../workflows/workflow_service.ts";

/** Hands out the one {@linkcode WorkflowService} of a core, importing it on the first call. */
export class WorkflowsOnDemand {
  readonly #sessions: WorkflowSessionStore;
  readonly #root: string;
  #service: Promise<WorkflowService> | null = null;

  /** `sessions`: where sessions live; `root`: the root whose `workflows/` holds the files. */
  constructor(sessions: WorkflowSessionStore, root: string) {
    this.#sessions = sessions;
    this.#root = root;
  }

  /** The service, the same one on every call. */
  get(): Promise<WorkflowService> {
    this.#service ??= import("../workflows/workflow_service.ts").then(({ WorkflowService }) =>
      new WorkflowService({ sessions: this.#sessions, root: this.#root })
    );
    return this.#service;
  }
}
