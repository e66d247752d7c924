/**
 * Plain text of workflow views for agents: the step's title and prompt first, then a
 * footer with progress, the loop pass and exactly what to run next.
 * @module
 */

import type {
  WorkflowEventView,
  WorkflowListView,
  WorkflowLogView,
  WorkflowView,
} from "./workflow_view.ts";

/**
 * Renders any workflow view as the text the CLI prints without `--json`. The JSON views carry the
 * same facts; this is their reading for a model that follows instructions line by line.
 *
 * @example
 * ```ts
 * import { renderWorkflowText } from "./workflow_text.ts";
 * import assert from "node:assert/strict";
 * const text = renderWorkflowText({
 *   view: "list",
 *   directory: "/root/workflows",
 *   files: [{ name: "fix", file: "fix.yaml", description: "Fix a bug", steps: 3, error: null }],
 *   sessions: [],
 * });
 * assert.equal(
 *   text,
 *   "Workflows in /root/workflows:\n  fix  (3 steps)  Fix a bug\n\nRunning sessions:\n  (none)\n\n" +
 *     "Start one with `gateway workflow start NAME [--session NAME] [--var k=v]`.",
 * );
 * ```
 */
export function renderWorkflowText(
  view: WorkflowView | WorkflowListView | WorkflowLogView,
): string {
  switch (view.view) {
    case "workflow":
      return renderWorkflow(view);
    case "list":
      return renderList(view);
    case "log":
      return renderLog(view);
  }
}

function renderWorkflow(view: WorkflowView): string {
  const lines: string[] = [];
  if (view.step !== null) {
    lines.push(`## ${view.step.title}`, "", view.step.prompt, "");
  } else if (view.message !== null) {
    lines.push(view.message, "");
  }
  lines.push("---");
  if (view.workflow !== null) {
    lines.push(
      `Workflow: ${view.workflow.name} (${view.workflow.file}), session "${view.session}"`,
    );
  }
  const step = view.step;
  if (step !== null) {
    const loop = step.loop;
    const pass = loop === null
      ? ""
      : `, loop pass ${loop.pass} (min ${loop.min}, max ${loop.max})${
        loop.lastPass ? ", last pass" : ""
      }`;
    lines.push(`Step ${step.number} of ${step.total}${pass}`);
    if (loop !== null && !loop.canEnd) {
      lines.push(
        `--end-loop is accepted from pass ${loop.min} on (${loop.passesRemaining} more ${
          loop.passesRemaining === 1 ? "pass" : "passes"
        }).`,
      );
    }
  }
  for (const warning of view.warnings) lines.push(`Warning: ${warning}`);
  for (const [index, next] of view.next.entries()) {
    lines.push(`${index === 0 ? "Next" : "Or"}: run \`${next.command}\` ${next.description}.`);
  }
  return lines.join("\n");
}

function renderList(view: WorkflowListView): string {
  const lines = [`Workflows in ${view.directory}:`];
  if (view.files.length === 0) lines.push("  (none)");
  for (const file of view.files) {
    if (file.error !== null) {
      lines.push(`  ${file.name}  BROKEN: ${file.error.split("\n")[0]}`);
    } else {
      const steps = `${file.steps} ${file.steps === 1 ? "step" : "steps"}`;
      lines.push(
        `  ${file.name}  (${steps})${
          file.description === null ? "" : `  ${oneLine(file.description)}`
        }`,
      );
    }
  }
  lines.push("", "Running sessions:");
  if (view.sessions.length === 0) lines.push("  (none)");
  for (const session of view.sessions) {
    lines.push(
      `  ${session.session}  ${session.name}  step ${session.step} of ${session.totalSteps}${
        session.pass > 1 ? `, pass ${session.pass}` : ""
      }  updated ${new Date(session.updatedAt).toISOString()}${
        session.fileChanged ? "  FILE CHANGED: reset or abort it" : ""
      }`,
    );
  }
  lines.push("", "Start one with `gateway workflow start NAME [--session NAME] [--var k=v]`.");
  return lines.join("\n");
}

function renderLog(view: WorkflowLogView): string {
  if (view.status === "none") return `No workflow was started in session "${view.session}".`;
  const lines = [`Session "${view.session}": ${view.file ?? "?"} (${view.status})`];
  for (const event of view.events) lines.push(`  ${eventLine(event)}`);
  return lines.join("\n");
}

function eventLine(event: WorkflowEventView): string {
  const where = event.step === null
    ? ""
    : `step ${event.step}${event.pass === null ? "" : `, pass ${event.pass}`}`;
  const why = event.reason === null ? "" : `: ${event.reason}`;
  return `${event.time}  ${event.kind.padEnd(8)}  ${where}${why}`;
}

function oneLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
