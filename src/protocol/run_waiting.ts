/**
 * `run.waiting`: what a run waits for before it can start, told to a caller that asked for it
 * (`progress` in `exec`/`run`), so a person at a terminal learns why a first run takes a second
 * (the CLI shows one line on stderr while it lasts).
 * @module
 */

/** What a run can wait for before it starts. */
export type RunWaitReason = "typeChecker";

/** The params of a `run.waiting` notification. */
export interface RunWaiting {
  runId: string;
  /** `typeChecker`: the type checker is starting (the first typed run, or one after it idled). */
  on: RunWaitReason;
  /** "start" when the wait begins, "done" when it is over. */
  phase: "start" | "done";
  /** With "done": how long it waited, in ms. */
  ms?: number;
}

/** The one-line description of a wait, as the CLI shows it. */
export function describeRunWait(on: RunWaitReason): string {
  switch (on) {
    case "typeChecker":
      return "starting the type checker…";
  }
}
