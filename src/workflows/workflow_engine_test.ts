import assert from "node:assert/strict";
import {
  applyWorkflowCommand,
  IDLE_WORKFLOW_STATE,
  passesRemaining,
  type WorkflowCommand,
  type WorkflowShape,
  type WorkflowState,
} from "./workflow_engine.ts";
import { WorkflowError } from "./workflow_error.ts";

const SHAPE: WorkflowShape = {
  steps: [
    { title: "Plan", loop: null },
    { title: "Fix", loop: { min: 2, max: 3 } },
    { title: "Ship", loop: null },
  ],
};

function run(commands: WorkflowCommand[], shape: WorkflowShape = SHAPE): WorkflowState {
  let state = IDLE_WORKFLOW_STATE;
  for (const command of commands) state = applyWorkflowCommand(state, command, shape).state;
  return state;
}

function refusal(state: WorkflowState, command: WorkflowCommand): WorkflowError {
  try {
    applyWorkflowCommand(state, command, SHAPE);
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test("applyWorkflowCommand() starts at step 1, pass 1, with a start event", () => {
  assert.deepEqual(applyWorkflowCommand(IDLE_WORKFLOW_STATE, { type: "start" }, SHAPE), {
    state: { status: "running", step: 0, pass: 1 },
    events: [{ kind: "start", step: 1, pass: null, reason: null }],
  });
});

Deno.test("applyWorkflowCommand() repeats a loop step on step until its max, then moves on by itself", () => {
  const atLoop = run([{ type: "start" }, { type: "step" }]);
  assert.deepEqual(atLoop, { status: "running", step: 1, pass: 1 });
  const pass2 = applyWorkflowCommand(atLoop, { type: "step" }, SHAPE);
  assert.deepEqual(pass2.events, [{ kind: "loop", step: 2, pass: 2, reason: null }]);
  const pass3 = applyWorkflowCommand(pass2.state, { type: "step" }, SHAPE);
  assert.deepEqual(pass3.state, { status: "running", step: 1, pass: 3 });
  const after = applyWorkflowCommand(pass3.state, { type: "step" }, SHAPE);
  assert.deepEqual(after, {
    state: { status: "running", step: 2, pass: 1 },
    events: [
      { kind: "end-loop", step: 2, pass: 3, reason: "reached max of 3 passes" },
      { kind: "step", step: 3, pass: null, reason: null },
    ],
  });
});

Deno.test("applyWorkflowCommand() refuses endLoop before min, saying how many passes remain", () => {
  const atLoop = run([{ type: "start" }, { type: "step" }]);
  assert.equal(passesRemaining(atLoop, SHAPE), 1);
  const error = refusal(atLoop, { type: "endLoop", reason: "done" });
  assert.equal(error.code, "Refused");
  assert.equal(
    error.message,
    'Cannot end loop of step 2 "Fix" at pass 1: 1 more pass required before --end-loop (min 2)',
  );
  const threeShort = { steps: [{ title: "L", loop: { min: 4, max: 9 } }] };
  assert.throws(
    () =>
      applyWorkflowCommand(
        { status: "running", step: 0, pass: 1 },
        { type: "endLoop", reason: "x" },
        threeShort,
      ),
    { message: /3 more passes required before --end-loop \(min 4\)/ },
  );
});

Deno.test("applyWorkflowCommand() accepts endLoop at min and records the reason", () => {
  const atMin = run([{ type: "start" }, { type: "step" }, { type: "step" }]);
  assert.equal(passesRemaining(atMin, SHAPE), 0);
  assert.deepEqual(
    applyWorkflowCommand(atMin, { type: "endLoop", reason: "  all green " }, SHAPE),
    {
      state: { status: "running", step: 2, pass: 1 },
      events: [
        { kind: "end-loop", step: 2, pass: 2, reason: "all green" },
        { kind: "step", step: 3, pass: null, reason: null },
      ],
    },
  );
});

Deno.test("applyWorkflowCommand() refuses endLoop on a step without a loop, and an empty reason", () => {
  const first = run([{ type: "start" }]);
  assert.match(
    refusal(first, { type: "endLoop", reason: "x" }).message,
    /"Plan" is not a loop step/,
  );
  const atMin = run([{ type: "start" }, { type: "step" }, { type: "step" }]);
  const empty = refusal(atMin, { type: "endLoop", reason: " " });
  assert.equal(empty.code, "BadArgument");
  assert.match(empty.message, /reason is required/);
});

Deno.test("applyWorkflowCommand() completes after the last step and refuses to go on", () => {
  const last = run([{ type: "start" }, { type: "step" }, { type: "step" }, {
    type: "endLoop",
    reason: "ok",
  }]);
  const done = applyWorkflowCommand(last, { type: "step" }, SHAPE);
  assert.deepEqual(done, {
    state: { status: "complete", step: 2, pass: 1 },
    events: [{ kind: "complete", step: 3, pass: null, reason: null }],
  });
  assert.match(refusal(done.state, { type: "step" }).message, /Cannot step: it is complete/);
  assert.match(refusal(done.state, { type: "abort", reason: "x" }).message, /it is complete/);
});

Deno.test("applyWorkflowCommand() completes a workflow whose last step is a loop ended at max", () => {
  const shape = { steps: [{ title: "Only", loop: { min: 1, max: 1 } }] };
  const started = run([{ type: "start" }], shape);
  const done = applyWorkflowCommand(started, { type: "step" }, shape);
  assert.deepEqual(done.events.map((e) => e.kind), ["end-loop", "complete"]);
  assert.equal(done.state.status, "complete");
});

Deno.test("applyWorkflowCommand() aborts with a reason and resets to step 1", () => {
  const atLoop = run([{ type: "start" }, { type: "step" }, { type: "step" }]);
  const aborted = applyWorkflowCommand(atLoop, { type: "abort", reason: "wrong plan" }, SHAPE);
  assert.deepEqual(aborted, {
    state: { status: "aborted", step: 1, pass: 2 },
    events: [{ kind: "abort", step: 2, pass: 2, reason: "wrong plan" }],
  });
  assert.equal(refusal(atLoop, { type: "abort", reason: "" }).code, "BadArgument");
  assert.match(refusal(aborted.state, { type: "step" }).message, /it was aborted/);
  const reset = applyWorkflowCommand(aborted.state, { type: "reset" }, SHAPE);
  assert.deepEqual(reset, {
    state: { status: "running", step: 0, pass: 1 },
    events: [{ kind: "reset", step: 2, pass: 2, reason: null }],
  });
});

Deno.test("applyWorkflowCommand() refuses commands out of order", () => {
  assert.match(refusal(IDLE_WORKFLOW_STATE, { type: "step" }).message, /has not started/);
  assert.match(refusal(IDLE_WORKFLOW_STATE, { type: "reset" }).message, /has not started/);
  const running = run([{ type: "start" }]);
  assert.match(refusal(running, { type: "start" }).message, /already running/);
  assert.throws(() => applyWorkflowCommand(IDLE_WORKFLOW_STATE, { type: "start" }, { steps: [] }), {
    message: /no steps/,
  });
});

Deno.test("applyWorkflowCommand() leaves the state it was given untouched", () => {
  const state = { status: "running", step: 1, pass: 1 } as const;
  const copy = { ...state };
  applyWorkflowCommand(state, { type: "step" }, SHAPE);
  applyWorkflowCommand(state, { type: "abort", reason: "x" }, SHAPE);
  assert.deepEqual(state, copy);
  assert.ok(Object.isFrozen(IDLE_WORKFLOW_STATE));
});
