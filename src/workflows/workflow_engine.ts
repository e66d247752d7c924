/**
 * The workflow state machine, pure: a state and a command give the next state and the
 * events to record, or a refusal. No I/O, no clock; the service persists what this decides.
 * @module
 */

import { WorkflowError } from "./workflow_error.ts";
import type { WorkflowLoop } from "./workflow_file.ts";
import type { WorkflowSessionEventKind } from "../store/workflow_sessions.ts";

/** Where a workflow run is. `idle` is the state before `start`. */
export type WorkflowStatus = "idle" | "running" | "complete" | "aborted";

/** The position of a workflow run. */
export interface WorkflowState {
  status: WorkflowStatus;
  /** 0-based index of the current step (of the last one once complete). */
  step: number;
  /** 1-based pass of the current step; a step without a loop is always at pass 1. */
  pass: number;
}

/** The state before `start`. */
export const IDLE_WORKFLOW_STATE: WorkflowState = Object.freeze({
  status: "idle",
  step: 0,
  pass: 0,
});

/** What a caller asks of a workflow run. */
export type WorkflowCommand =
  | { type: "start" }
  | { type: "step" }
  | { type: "endLoop"; reason: string }
  | { type: "reset" }
  | { type: "abort"; reason: string };

/** The kinds of event the history of a session holds (stored as they are named here). */
export type WorkflowEventKind = WorkflowSessionEventKind;

/** One thing that happened, as the engine decided it (the service adds the time). */
export interface WorkflowEngineEvent {
  kind: WorkflowEventKind;
  /** 1-based step the event is about: the step entered, the loop ended, the step aborted at. */
  step: number;
  /** Loop pass the event is about, or null when the step has no loop. */
  pass: number | null;
  reason: string | null;
}

/** The result of applying a command. */
export interface WorkflowTransition {
  state: WorkflowState;
  events: WorkflowEngineEvent[];
}

/** What the engine needs to know of a workflow: its steps' titles (for messages) and loops. */
export interface WorkflowShape {
  steps: readonly { title: string; loop: WorkflowLoop | null }[];
}

/**
 * Applies `command` to `state`. A loop step repeats on `step` until `endLoop` at or after its
 * `min`, and ends by itself on the `step` after its `max`-th pass. Commands that make no sense
 * now (end-loop before `min`, step after completion …) throw a {@linkcode WorkflowError} with
 * code `Refused` that says why and what to do instead.
 *
 * @example
 * ```ts
 * import { applyWorkflowCommand, IDLE_WORKFLOW_STATE } from "./workflow_engine.ts";
 * import assert from "node:assert/strict";
 * const shape = { steps: [{ title: "Plan", loop: null }, { title: "Fix", loop: { min: 1, max: 3 } }] };
 * const started = applyWorkflowCommand(IDLE_WORKFLOW_STATE, { type: "start" }, shape);
 * const next = applyWorkflowCommand(started.state, { type: "step" }, shape);
 * assert.deepEqual(next.state, { status: "running", step: 1, pass: 1 });
 * ```
 */
export function applyWorkflowCommand(
  state: WorkflowState,
  command: WorkflowCommand,
  shape: WorkflowShape,
): WorkflowTransition {
  if (shape.steps.length === 0) {
    throw new WorkflowError("Refused", "Cannot run workflow: it has no steps");
  }
  switch (command.type) {
    case "start": {
      if (state.status === "running") {
        throw new WorkflowError("Refused", "Cannot start workflow: it is already running");
      }
      const first = enter(0);
      return { state: first, events: [event("start", { shape, state: first, reason: null })] };
    }
    case "reset": {
      if (state.status === "idle") {
        throw new WorkflowError("Refused", "Cannot reset workflow: it has not started");
      }
      const first = enter(0);
      return { state: first, events: [event("reset", { shape, state, reason: null })] };
    }
    case "abort": {
      requireRunning(state, "abort");
      const reason = requireReason(command.reason, "abort workflow");
      return {
        state: { ...state, status: "aborted" },
        events: [event("abort", { shape, state, reason })],
      };
    }
    case "step": {
      requireRunning(state, "step");
      const loop = loopOf(shape, state.step);
      if (loop !== null && state.pass < loop.max) {
        const next = { ...state, pass: state.pass + 1 };
        return { state: next, events: [event("loop", { shape, state: next, reason: null })] };
      }
      const ended = loop === null
        ? []
        : [event("end-loop", { shape, state, reason: `reached max of ${passes(loop.max)}` })];
      return advance(state, { shape, events: ended });
    }
    case "endLoop": {
      requireRunning(state, "end loop");
      const reason = requireReason(command.reason, "end loop");
      const loop = loopOf(shape, state.step);
      const title = titleOf(shape, state.step);
      if (loop === null) {
        throw new WorkflowError(
          "Refused",
          `Cannot end loop: step ${
            state.step + 1
          } "${title}" is not a loop step: step on without --end-loop`,
        );
      }
      if (state.pass < loop.min) {
        const remaining = loop.min - state.pass;
        throw new WorkflowError(
          "Refused",
          `Cannot end loop of step ${
            state.step + 1
          } "${title}" at pass ${state.pass}: ${remaining} more ${
            remaining === 1 ? "pass" : "passes"
          } required before --end-loop (min ${loop.min})`,
        );
      }
      return advance(state, { shape, events: [event("end-loop", { shape, state, reason })] });
    }
  }
}

/** Passes still required before `endLoop` is accepted at this state (0 when allowed now). */
export function passesRemaining(state: WorkflowState, shape: WorkflowShape): number {
  const loop = loopOf(shape, state.step);
  return loop === null ? 0 : Math.max(0, loop.min - state.pass);
}

function advance(
  state: WorkflowState,
  options: { shape: WorkflowShape; events: WorkflowEngineEvent[] },
): WorkflowTransition {
  const { shape, events } = options;
  const nextIndex = state.step + 1;
  if (nextIndex >= shape.steps.length) {
    const done: WorkflowState = { ...state, status: "complete" };
    return {
      state: done,
      events: [...events, event("complete", { shape, state: done, reason: null })],
    };
  }
  const next = enter(nextIndex);
  return { state: next, events: [...events, event("step", { shape, state: next, reason: null })] };
}

function enter(index: number): WorkflowState {
  return { status: "running", step: index, pass: 1 };
}

function event(
  kind: WorkflowEventKind,
  options: { shape: WorkflowShape; state: WorkflowState; reason: string | null },
): WorkflowEngineEvent {
  const { shape, state, reason } = options;
  const loop = loopOf(shape, state.step);
  return {
    kind,
    step: state.step + 1,
    pass: loop === null || kind === "complete" ? null : state.pass,
    reason,
  };
}

function requireRunning(state: WorkflowState, what: string): void {
  if (state.status === "running") return;
  const why = state.status === "idle"
    ? "it has not started"
    : state.status === "complete"
    ? "it is complete"
    : "it was aborted";
  throw new WorkflowError(
    "Refused",
    `Cannot ${what}: ${why}: start it again with \`gateway workflow start\``,
  );
}

function requireReason(reason: string, what: string): string {
  const trimmed = reason.trim();
  if (trimmed === "") {
    throw new WorkflowError("BadArgument", `Cannot ${what}: a reason is required`);
  }
  return trimmed;
}

function loopOf(shape: WorkflowShape, index: number): WorkflowLoop | null {
  return shape.steps[index]?.loop ?? null;
}

function titleOf(shape: WorkflowShape, index: number): string {
  return shape.steps[index]?.title ?? `#${index + 1}`;
}

function passes(n: number): string {
  return n === 1 ? "1 pass" : `${n} passes`;
}
