import assert from "node:assert/strict";
import type { WorkflowListView, WorkflowLogView, WorkflowView } from "./workflow_view.ts";
import { renderWorkflowText } from "./workflow_text.ts";

const RUNNING: WorkflowView = {
  view: "workflow",
  session: "s",
  status: "running",
  workflow: { file: "/r/workflows/review.yaml", name: "review", description: null, totalSteps: 5 },
  step: {
    number: 2,
    total: 5,
    title: "Round 2",
    prompt: "Check the tests.",
    loop: { pass: 2, min: 1, max: 3, canEnd: true, passesRemaining: 0, lastPass: false },
  },
  message: null,
  events: [],
  fileChanged: false,
  warnings: [],
  next: [
    { command: "gateway workflow step", description: "when this pass is done, for pass 3" },
    {
      command: 'gateway workflow step --end-loop "reason"',
      description: "to end the loop now and move on, saying why",
    },
  ],
};

Deno.test("renderWorkflowText() shows title, prompt, then progress, loop pass and what to run", () => {
  assert.equal(
    renderWorkflowText(RUNNING),
    [
      "## Round 2",
      "",
      "Check the tests.",
      "",
      "---",
      'Workflow: review (/r/workflows/review.yaml), session "s"',
      "Step 2 of 5, loop pass 2 (min 1, max 3)",
      "Next: run `gateway workflow step` when this pass is done, for pass 3.",
      'Or: run `gateway workflow step --end-loop "reason"` to end the loop now and move on, saying why.',
    ].join("\n"),
  );
});

Deno.test("renderWorkflowText() says when --end-loop is accepted, and warns of a changed file", () => {
  const text = renderWorkflowText({
    ...RUNNING,
    step: {
      ...RUNNING.step!,
      loop: { pass: 1, min: 3, max: 5, canEnd: false, passesRemaining: 2, lastPass: false },
    },
    fileChanged: true,
    warnings: ["The workflow file changed."],
    next: [{ command: "gateway workflow step", description: "for pass 2" }],
  });
  assert.match(text, /^Step 2 of 5, loop pass 1 \(min 3, max 5\)$/m);
  assert.match(text, /^--end-loop is accepted from pass 3 on \(2 more passes\)\.$/m);
  assert.match(text, /^Warning: The workflow file changed\.$/m);
});

Deno.test("renderWorkflowText() shows the message of a finished workflow", () => {
  const text = renderWorkflowText({
    ...RUNNING,
    status: "complete",
    step: null,
    message: 'Workflow "review" is complete: all 5 steps done.',
    next: [{ command: "gateway workflow start review", description: "to run it again" }],
  });
  assert.equal(
    text,
    [
      'Workflow "review" is complete: all 5 steps done.',
      "",
      "---",
      'Workflow: review (/r/workflows/review.yaml), session "s"',
      "Next: run `gateway workflow start review` to run it again.",
    ].join("\n"),
  );
});

Deno.test("renderWorkflowText() lists files, broken files and running sessions", () => {
  const list: WorkflowListView = {
    view: "list",
    directory: "/r/workflows",
    files: [
      { name: "bad", file: "/r/workflows/bad.yaml", description: null, steps: null, error: "x\ny" },
      {
        name: "review",
        file: "/r/workflows/review.yaml",
        description: "Review",
        steps: 1,
        error: null,
      },
    ],
    sessions: [{
      session: "s",
      file: "/r/workflows/review.yaml",
      name: "review",
      step: 1,
      totalSteps: 1,
      pass: 2,
      startedAt: 0,
      updatedAt: 0,
      fileChanged: true,
    }],
  };
  const text = renderWorkflowText(list);
  assert.match(text, /^ {2}bad {2}BROKEN: x$/m);
  assert.match(text, /^ {2}review {2}\(1 step\) {2}Review$/m);
  assert.match(
    text,
    /^ {2}s {2}review {2}step 1 of 1, pass 2 {2}updated 1970-01-01T00:00:00\.000Z {2}FILE CHANGED/m,
  );
});

Deno.test("renderWorkflowText() prints a log one event a line with time, step, pass and reason", () => {
  const log: WorkflowLogView = {
    view: "log",
    session: "s",
    status: "aborted",
    file: "/r/a.yaml",
    events: [
      { at: 0, time: "1970-01-01T00:00:00.000Z", kind: "start", step: 1, pass: null, reason: null },
      { at: 1, time: "1970-01-01T00:00:00.001Z", kind: "abort", step: 2, pass: 3, reason: "why" },
    ],
  };
  assert.equal(
    renderWorkflowText(log),
    [
      'Session "s": /r/a.yaml (aborted)',
      "  1970-01-01T00:00:00.000Z  start     step 1",
      "  1970-01-01T00:00:00.001Z  abort     step 2, pass 3: why",
    ].join("\n"),
  );
  assert.equal(
    renderWorkflowText({ ...log, status: "none", file: null, events: [] }),
    'No workflow was started in session "s".',
  );
});
