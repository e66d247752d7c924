/**
 * The JSON views workflow commands answer and how they are built: the rendered step,
 * progress and loop facts, and the exact commands an agent runs next.
 * @module
 */

import type { NewWorkflowSessionEvent, WorkflowSession } from "../store/workflow_sessions.ts";
import { defaultSessionName } from "./default_session_name.ts";
import type { WorkflowEventKind, WorkflowState } from "./workflow_engine.ts";
import { WorkflowError } from "./workflow_error.ts";
import { workflowFileArgument, workflowName } from "./workflow_directory.ts";
import type { WorkflowDefinition, WorkflowVarValue } from "./workflow_file.ts";
import { renderWorkflowTemplate } from "./workflow_template.ts";

/** One event as views show it. */
export interface WorkflowEventView {
  /** ms since the epoch. */
  at: number;
  /** `at` as an ISO 8601 string. */
  time: string;
  kind: WorkflowEventKind;
  step: number | null;
  pass: number | null;
  reason: string | null;
}

/** The step an agent should work on now, rendered. */
export interface WorkflowStepView {
  /** 1-based. */
  number: number;
  total: number;
  title: string;
  prompt: string;
  loop: {
    pass: number;
    min: number;
    max: number;
    /** `--end-loop` is accepted now. */
    canEnd: boolean;
    /** Passes still required before `--end-loop` is accepted. */
    passesRemaining: number;
    /** This is the last pass: the next `step` moves on by itself. */
    lastPass: boolean;
  } | null;
}

/** A command the agent can run next, with what it does. */
export interface WorkflowNextCommand {
  command: string;
  description: string;
}

/** What start, step, status, reset and abort answer. */
export interface WorkflowView {
  view: "workflow";
  session: string;
  status: "none" | "running" | "complete" | "aborted";
  workflow: {
    /** Absolute path of the file. */
    file: string;
    /** File name without extension. */
    name: string;
    description: string | null;
    totalSteps: number;
  } | null;
  /** The current step while running; null otherwise. */
  step: WorkflowStepView | null;
  /** One line for finished or missing workflows ("complete: all 4 steps done"); else null. */
  message: string | null;
  /** The events this command recorded (all of them for status: none). */
  events: WorkflowEventView[];
  /** The file on disk differs from the one the session follows (or is gone). */
  fileChanged: boolean;
  warnings: string[];
  next: WorkflowNextCommand[];
}

/** What `list` answers: workflow files in the root and running sessions. */
export interface WorkflowListView {
  view: "list";
  /** The folder searched, `ROOT/workflows`. */
  directory: string;
  files: {
    name: string;
    file: string;
    description: string | null;
    /** Number of steps, or null when the file is bad. */
    steps: number | null;
    /** Why the file cannot be used, or null. */
    error: string | null;
  }[];
  sessions: {
    session: string;
    file: string;
    name: string;
    /** 1-based current step. */
    step: number;
    totalSteps: number;
    pass: number;
    startedAt: number;
    updatedAt: number;
    fileChanged: boolean;
  }[];
}

/** What `log` answers: the events of the session's latest workflow run. */
export interface WorkflowLogView {
  view: "log";
  session: string;
  status: "none" | "running" | "complete" | "aborted";
  file: string | null;
  events: WorkflowEventView[];
}

/**
 * Builds the view of a session after a command: the rendered step (or how the workflow ended),
 * the events just recorded, warnings, and the commands to run next.
 */
export function workflowView(
  session: WorkflowSession,
  details: {
    definition: WorkflowDefinition;
    /** The caller's directory: hints leave out `--session` for its default session. */
    cwd: string;
    /** The root, so hints name bundled workflows by name. */
    root: string;
    step: WorkflowStepView | null;
    events: readonly NewWorkflowSessionEvent[];
    fileChanged: boolean;
    /** Why the workflow was aborted, when it was. */
    abortReason: string | null;
  },
): WorkflowView {
  const definition = details.definition;
  const where = { session: session.name, cwd: details.cwd };
  const name = workflowName(session.file);
  const total = definition.steps.length;
  const warnings = details.fileChanged
    ? [
      `The workflow file "${session.file}" changed since this session started; this session follows the old version. Run ${
        cliCommand("reset", where)
      } to start over with the new file.`,
    ]
    : [];
  const next: WorkflowNextCommand[] = [];
  let message: string | null = null;
  if (session.status === "running" && details.step !== null) {
    const loop = details.step.loop;
    const step = cliCommand("step", where);
    if (loop === null) {
      next.push({
        command: step,
        description: details.step.number === total
          ? "when this step is done, to finish the workflow"
          : "when this step is done, to see the next one",
      });
    } else if (loop.lastPass) {
      next.push({
        command: step,
        description:
          `when this pass is done: it is the last (max ${loop.max}), the loop then ends by itself`,
      });
    } else {
      next.push({
        command: step,
        description: `when this pass is done, for pass ${loop.pass + 1}`,
      });
    }
    if (loop !== null && loop.canEnd) {
      next.push({
        command: cliCommand(`step --end-loop "reason"`, where),
        description: "to end the loop now and move on, saying why",
      });
    }
  } else if (session.status === "complete") {
    message = `Workflow "${name}" is complete: all ${total} ${
      total === 1 ? "step" : "steps"
    } done.`;
    next.push({
      command: cliCommand(`start ${workflowFileArgument(session.file, details.root)}`, where),
      description: "to run it again",
    });
  } else if (session.status === "aborted") {
    const reason = details.abortReason;
    message = `Workflow "${name}" was aborted at step ${session.step + 1} of ${total}${
      reason === null ? "" : `: ${reason}`
    }.`;
    next.push({
      command: cliCommand(`start ${workflowFileArgument(session.file, details.root)}`, where),
      description: "to run it again",
    });
    next.push({
      command: cliCommand("reset", where),
      description: "to start it over from step 1 in this session",
    });
  }
  return {
    view: "workflow",
    session: session.name,
    status: session.status,
    workflow: {
      file: session.file,
      name,
      description: definition.description,
      totalSteps: total,
    },
    step: details.step,
    message,
    events: details.events.map(eventView),
    fileChanged: details.fileChanged,
    warnings,
    next,
  };
}

/** Renders the step `state` points at, with the loop facts the footer needs. */
export function renderStepView(
  definition: WorkflowDefinition,
  state: WorkflowState,
  context: { session: string; vars: Record<string, WorkflowVarValue> },
): WorkflowStepView {
  const step = definition.steps[state.step];
  if (step === undefined) {
    throw new WorkflowError(
      "Refused",
      `Cannot show step ${state.step + 1}: the workflow has ${definition.steps.length}`,
    );
  }
  const loop = step.loop;
  const values = {
    step: state.step + 1,
    totalSteps: definition.steps.length,
    loop: loop === null ? null : state.pass,
    min: loop?.min ?? null,
    max: loop?.max ?? null,
    session: context.session,
    vars: context.vars,
  };
  const site = { step: state.step + 1, stepTitle: step.title };
  return {
    number: state.step + 1,
    total: definition.steps.length,
    title: renderWorkflowTemplate(step.title, values, { ...site, field: "title" }).trim(),
    prompt: renderWorkflowTemplate(step.prompt, values, { ...site, field: "prompt" }).trim(),
    loop: loop === null ? null : {
      pass: state.pass,
      min: loop.min,
      max: loop.max,
      canEnd: state.pass >= loop.min,
      passesRemaining: Math.max(0, loop.min - state.pass),
      lastPass: state.pass >= loop.max,
    },
  };
}

/** The view of a session where no workflow was ever started. */
export function noneWorkflowView(session: string, cwd: string): WorkflowView {
  return {
    view: "workflow",
    session,
    status: "none",
    workflow: null,
    step: null,
    message: `No workflow was started in session "${session}".`,
    events: [],
    fileChanged: false,
    warnings: [],
    next: [
      { command: cliCommand("start FILE", { session, cwd }), description: "to start one" },
      { command: "gateway workflow list", description: "to see the workflows there are" },
    ],
  };
}

/** An event as views show it, with its time as ISO 8601. */
export function eventView(event: NewWorkflowSessionEvent): WorkflowEventView {
  return {
    at: event.at,
    time: new Date(event.at).toISOString(),
    kind: event.kind,
    step: event.step,
    pass: event.pass,
    reason: event.reason,
  };
}

/** `gateway workflow VERB [--session NAME]`, leaving out the session when it is cwd's default. */
export function cliCommand(verb: string, where: { session: string; cwd: string }): string {
  const { session, cwd } = where;
  const flag = session === defaultSessionName(cwd) ? "" : ` --session ${quote(session)}`;
  return `gateway workflow ${verb}${flag}`;
}

function quote(value: string): string {
  return /^[A-Za-z0-9._:/@+-]+$/.test(value) ? value : JSON.stringify(value);
}
