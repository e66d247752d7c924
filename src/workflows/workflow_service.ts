/**
 * The workflow facade the CLI, RPC and HTTP call (SPEC §10): start, step, status, reset, abort,
 * list and log, each answering a plain JSON view, persisted per session in `gateway.db`.
 * Agent-facing text for these views is in `workflow_text.ts`.
 * @module
 */

import { createHash } from "node:crypto";
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import type { GatewayDatabase } from "../store/gateway_database.ts";
import {
  type NewWorkflowSessionEvent,
  type WorkflowSession,
  WorkflowSessions,
} from "../store/workflow_sessions.ts";
import {
  applyWorkflowCommand,
  type WorkflowCommand,
  type WorkflowEventKind,
  type WorkflowState,
} from "./workflow_engine.ts";
import { WorkflowError } from "./workflow_error.ts";
import {
  hashWorkflowText,
  parseWorkflowFile,
  readWorkflowFile,
  type WorkflowDefinition,
  type WorkflowVarValue,
} from "./workflow_file.ts";
import { checkWorkflowTemplate, renderWorkflowTemplate } from "./workflow_template.ts";

/** Options of {@linkcode WorkflowService}. */
export interface WorkflowServiceOptions {
  /** The gateway database (already open and migrated). */
  database: GatewayDatabase;
  /** The root whose `workflows/` folder holds the named workflows. */
  root: string;
  /** Clock for event times, ms since the epoch. @default {Date.now} */
  now?: () => number;
}

/** Fields every session command takes. */
export interface WorkflowSessionRequest {
  /** Session name; the CLI passes {@linkcode defaultSessionName} of its cwd when none is given. */
  session: string;
  /**
   * The caller's working directory: relative paths resolve against it, and the hints leave out
   * `--session` when the session is this directory's default.
   */
  cwd?: string;
}

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

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Workflows as a service: each method reads or changes one session and returns a plain JSON
 * view, or throws a {@linkcode WorkflowError}. State lives in the gateway database, so several
 * sessions run side by side and all of them survive a restart.
 */
export class WorkflowService {
  #sessions: WorkflowSessions;
  #root: string;
  #now: () => number;

  /** Serves the workflows of `root`, keeping sessions in `database`. */
  constructor(options: WorkflowServiceOptions) {
    this.#sessions = new WorkflowSessions(options.database);
    this.#root = options.root;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Starts `file` (a name in `ROOT/workflows`, with or without `.yaml`, or a path) in `session`
   * and shows step 1. Every template is checked first, so a typo in a late step is refused now.
   * Refused while the session's previous workflow is still running.
   */
  async start(
    request: WorkflowSessionRequest & { file: string; vars?: Record<string, WorkflowVarValue> },
  ): Promise<WorkflowView> {
    const session = checkSessionName(request.session);
    const cwd = request.cwd ?? Deno.cwd();
    const path = await this.#resolveFile(request.file, cwd);
    const loaded = await readWorkflowFile(path);
    const given = checkVars(request.vars ?? {}, loaded.definition);
    const vars = { ...loaded.definition.vars, ...given };
    checkTemplates(loaded.definition, vars);
    const transition = applyWorkflowCommand(loaded.definition, idleState(), { type: "start" });
    const at = this.#now();
    const step = renderStep(loaded.definition, transition.state, { session, vars });
    const created = this.#sessions.transaction(() => {
      const previous = this.#sessions.latest(session);
      if (previous !== null && previous.status === "running") {
        throw new WorkflowError(
          "Refused",
          `Cannot start workflow "${request.file}" in session "${session}": workflow "${
            workflowName(previous.file)
          }" is still running there (step ${previous.step + 1}): abort it first with ${
            cliCommand(`abort --reason "…"`, session, cwd)
          }, or use another --session`,
        );
      }
      return this.#sessions.create(
        {
          name: session,
          file: path,
          fileHash: loaded.hash,
          fileText: loaded.text,
          vars: given,
          ...position(transition.state),
          at,
        },
        stampEvents(transition.events, at),
      );
    });
    return this.#view(created, loaded.definition, {
      cwd,
      step,
      events: stampEvents(transition.events, at),
      fileChanged: false,
    });
  }

  /**
   * Moves the session on and shows the step it lands on: the next pass of a loop step, the next
   * step, or completion. With `endLoop` (the reason), ends the current loop — refused before the
   * loop's `min`. Refused when the file changed since the session started.
   */
  async step(request: WorkflowSessionRequest & { endLoop?: string }): Promise<WorkflowView> {
    const command: WorkflowCommand = request.endLoop === undefined
      ? { type: "step" }
      : { type: "endLoop", reason: request.endLoop };
    return await this.#change(request, command, { requireSameFile: true });
  }

  /** Where the session is: the current step again (nothing recorded), or how it ended. */
  async status(request: WorkflowSessionRequest): Promise<WorkflowView> {
    const session = checkSessionName(request.session);
    const cwd = request.cwd ?? Deno.cwd();
    const current = this.#sessions.latest(session);
    if (current === null) return noneView(session, cwd);
    const definition = parseWorkflowFile(current.fileText, current.file);
    const disk = await readCurrentFile(current.file);
    const vars = { ...definition.vars, ...current.vars };
    const step = current.status === "running"
      ? renderStep(definition, stateOf(current), { session, vars })
      : null;
    return this.#view(current, definition, {
      cwd,
      step,
      events: [],
      fileChanged: disk.hash !== current.fileHash,
    });
  }

  /**
   * Starts the session's workflow over at step 1, adopting the file as it is now (the way out
   * after the file changed). The session keeps its vars.
   */
  async reset(request: WorkflowSessionRequest): Promise<WorkflowView> {
    return await this.#change(request, { type: "reset" }, { requireSameFile: false });
  }

  /** Stops the session's running workflow, recording `reason`. */
  async abort(request: WorkflowSessionRequest & { reason: string }): Promise<WorkflowView> {
    return await this.#change(request, { type: "abort", reason: request.reason }, {
      requireSameFile: false,
    });
  }

  /** Workflow files in `ROOT/workflows` (bad ones with their error) and running sessions. */
  async list(request: { root?: string } = {}): Promise<WorkflowListView> {
    const directory = join(request.root ?? this.#root, "workflows");
    const files: WorkflowListView["files"] = [];
    for (const path of await workflowFilesIn(directory)) {
      const name = workflowName(path);
      try {
        const loaded = await readWorkflowFile(path);
        files.push({
          name,
          file: path,
          description: loaded.definition.description,
          steps: loaded.definition.steps.length,
          error: null,
        });
      } catch (error) {
        if (!(error instanceof WorkflowError)) throw error;
        files.push({ name, file: path, description: null, steps: null, error: error.message });
      }
    }
    const sessions: WorkflowListView["sessions"] = [];
    for (const running of this.#sessions.running()) {
      const disk = await readCurrentFile(running.file);
      let totalSteps = 0;
      try {
        totalSteps = parseWorkflowFile(running.fileText, running.file).steps.length;
      } catch {
        // The stored text was valid when the session started; count nothing if it is not now.
      }
      sessions.push({
        session: running.name,
        file: running.file,
        name: workflowName(running.file),
        step: running.step + 1,
        totalSteps,
        pass: running.pass,
        startedAt: running.createdAt,
        updatedAt: running.updatedAt,
        fileChanged: disk.hash !== running.fileHash,
      });
    }
    return { view: "list", directory, files, sessions };
  }

  /** Every recorded event of the session's latest workflow run, oldest first. */
  log(request: WorkflowSessionRequest): WorkflowLogView {
    const session = checkSessionName(request.session);
    const current = this.#sessions.latest(session);
    if (current === null) return { view: "log", session, status: "none", file: null, events: [] };
    return {
      view: "log",
      session,
      status: current.status,
      file: current.file,
      events: this.#sessions.events(current.id).map(eventView),
    };
  }

  async #change(
    request: WorkflowSessionRequest,
    command: WorkflowCommand,
    options: { requireSameFile: boolean },
  ): Promise<WorkflowView> {
    const session = checkSessionName(request.session);
    const cwd = request.cwd ?? Deno.cwd();
    const before = this.#sessions.latest(session);
    if (before === null) {
      throw new WorkflowError(
        "NoSession",
        `Cannot ${
          verbOf(command)
        } session "${session}": no workflow was started in it: start one with ${
          cliCommand("start FILE", session, cwd)
        } (see gateway workflow list)`,
      );
    }
    const disk = await readCurrentFile(before.file);
    const fileChanged = disk.hash !== before.fileHash;
    if (options.requireSameFile && fileChanged && before.status === "running") {
      throw new WorkflowError(
        "FileChanged",
        `Cannot ${verbOf(command)} session "${session}": workflow file "${before.file}" ${
          disk.text === null ? "was deleted" : "changed"
        } since the session started: run ${
          cliCommand("reset", session, cwd)
        } to start over with the file as it is now, or ${
          cliCommand(`abort --reason "…"`, session, cwd)
        }`,
      );
    }
    let definition: WorkflowDefinition;
    let adopt: { fileHash: string; fileText: string } | undefined;
    if (command.type === "reset") {
      if (disk.text === null || disk.hash === null) {
        throw new WorkflowError(
          "NotFound",
          `Cannot reset session "${session}": workflow file "${before.file}" was deleted`,
        );
      }
      definition = parseWorkflowFile(disk.text, before.file);
      checkTemplates(definition, { ...definition.vars, ...before.vars });
      adopt = { fileHash: disk.hash, fileText: disk.text };
    } else {
      definition = parseWorkflowFile(before.fileText, before.file);
    }
    const vars = { ...definition.vars, ...before.vars };
    const at = this.#now();
    const outcome = this.#sessions.transaction(() => {
      // Re-read inside the write lock: another client may have moved the session meanwhile.
      const current = this.#sessions.latest(session);
      if (current === null || current.id !== before.id || current.fileHash !== before.fileHash) {
        throw new WorkflowError(
          "Refused",
          `Cannot ${
            verbOf(command)
          } session "${session}": it was started again or reset meanwhile: run ${
            cliCommand("status", session, cwd)
          } to see where it is`,
        );
      }
      if (current.status !== "running" && command.type !== "reset") {
        throw finishedError(command, current, {
          cwd,
          fileArgument: this.#fileArgument(current.file),
        });
      }
      const transition = applyWorkflowCommand(definition, stateOf(current), command);
      const events = stampEvents(transition.events, at);
      const step = transition.state.status === "running"
        ? renderStep(definition, transition.state, { session, vars })
        : null;
      const status = transition.state.status === "idle" ? "running" : transition.state.status;
      this.#sessions.update(current.id, {
        status,
        ...position(transition.state),
        at,
        ...(adopt === undefined ? {} : { file: adopt }),
      }, events);
      return {
        session: { ...current, status, ...position(transition.state), updatedAt: at },
        events,
        step,
      };
    });
    return this.#view(outcome.session, definition, {
      cwd,
      step: outcome.step,
      events: outcome.events,
      fileChanged: adopt === undefined ? fileChanged : false,
    });
  }

  #view(
    session: WorkflowSession,
    definition: WorkflowDefinition,
    details: {
      cwd: string;
      step: WorkflowStepView | null;
      events: readonly NewWorkflowSessionEvent[];
      fileChanged: boolean;
    },
  ): WorkflowView {
    const name = workflowName(session.file);
    const total = definition.steps.length;
    const warnings = details.fileChanged
      ? [
        `The workflow file "${session.file}" changed since this session started; this session follows the old version. Run ${
          cliCommand("reset", session.name, details.cwd)
        } to start over with the new file.`,
      ]
      : [];
    const next: WorkflowNextCommand[] = [];
    let message: string | null = null;
    const lastEvent = details.events[details.events.length - 1];
    if (session.status === "running" && details.step !== null) {
      const loop = details.step.loop;
      const step = cliCommand("step", session.name, details.cwd);
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
          command: cliCommand(`step --end-loop "reason"`, session.name, details.cwd),
          description: "to end the loop now and move on, saying why",
        });
      }
    } else if (session.status === "complete") {
      message = `Workflow "${name}" is complete: all ${total} ${
        total === 1 ? "step" : "steps"
      } done.`;
      next.push({
        command: cliCommand(`start ${this.#fileArgument(session.file)}`, session.name, details.cwd),
        description: "to run it again",
      });
    } else if (session.status === "aborted") {
      const abortEvent = lastEvent?.kind === "abort"
        ? lastEvent
        : this.#sessions.events(session.id).findLast((event) => event.kind === "abort");
      const reason = abortEvent?.reason ?? null;
      message = `Workflow "${name}" was aborted at step ${session.step + 1} of ${total}${
        reason === null ? "" : `: ${reason}`
      }.`;
      next.push({
        command: cliCommand(`start ${this.#fileArgument(session.file)}`, session.name, details.cwd),
        description: "to run it again",
      });
      next.push({
        command: cliCommand("reset", session.name, details.cwd),
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

  /** How `start` should name `file` in a hint: the bundled name when it is in the root. */
  #fileArgument(file: string): string {
    const inRoot = dirname(file) === join(this.#root, "workflows");
    return inRoot ? quote(workflowName(file)) : quote(file);
  }

  async #resolveFile(file: string, cwd: string): Promise<string> {
    if (file.trim() === "") {
      throw new WorkflowError("BadArgument", "Cannot start workflow: no file or name given");
    }
    const asPath = resolve(cwd, file);
    const looksLikePath = isAbsolute(file) || file.includes("/") || file.includes("\\");
    const directory = join(this.#root, "workflows");
    const candidates = looksLikePath ? [asPath] : [
      asPath,
      join(directory, file),
      join(directory, `${file}.yaml`),
      join(directory, `${file}.yml`),
    ];
    for (const candidate of candidates) {
      if (await isFile(candidate)) return candidate;
    }
    const available = (await workflowFilesIn(directory)).map(workflowName);
    throw new WorkflowError(
      "NotFound",
      looksLikePath
        ? `Cannot find workflow "${file}": no file "${asPath}"`
        : `Cannot find workflow "${file}": no file "${asPath}", and no "${file}", "${file}.yaml" or "${file}.yml" in "${directory}" (available: ${
          available.length === 0 ? "none" : available.join(", ")
        })`,
    );
  }
}

/**
 * The session name a directory uses when the caller names none (`project-1a2b3c4d`): the
 * folder's name for people, and a hash of its full path so two `project` folders differ.
 */
export function defaultSessionName(cwd: string): string {
  const full = resolve(cwd);
  const folder = basename(full).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40) || "root";
  return `${folder}-${createHash("sha256").update(full).digest("hex").slice(0, 8)}`;
}

/** `gateway workflow VERB [--session NAME]`, leaving out the session when it is cwd's default. */
function cliCommand(verb: string, session: string, cwd: string): string {
  const flag = session === defaultSessionName(cwd) ? "" : ` --session ${quote(session)}`;
  return `gateway workflow ${verb}${flag}`;
}

function quote(value: string): string {
  return /^[A-Za-z0-9._:/@+-]+$/.test(value) ? value : JSON.stringify(value);
}

function checkSessionName(session: string): string {
  const printable = [...session].every((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code >= 0x20 && code !== 0x7f;
  });
  if (!printable || session.trim() === "" || session.length > 200) {
    throw new WorkflowError(
      "BadArgument",
      `Cannot use session name ${
        JSON.stringify(session)
      }: it must be 1 to 200 printable characters`,
    );
  }
  return session;
}

/**
 * Checks `--var` names and turns values into the type of the file's default for that name
 * (`--var rounds=3` is the number 3 when the file says `rounds: 2`).
 */
function checkVars(
  given: Record<string, WorkflowVarValue>,
  definition: WorkflowDefinition,
): Record<string, WorkflowVarValue> {
  const vars: Record<string, WorkflowVarValue> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!VAR_NAME.test(key)) {
      throw new WorkflowError(
        "BadArgument",
        `Cannot use variable "${key}": names are letters, digits and _, not starting with a digit`,
      );
    }
    const fallback = definition.vars[key];
    if (typeof value === "string" && typeof fallback === "number") {
      const number = Number(value);
      if (value.trim() === "" || Number.isNaN(number)) {
        throw new WorkflowError(
          "BadArgument",
          `Cannot use variable "${key}": "${value}" is not a number, and the file's default is ${fallback}`,
        );
      }
      vars[key] = number;
    } else if (typeof value === "string" && typeof fallback === "boolean") {
      if (value !== "true" && value !== "false") {
        throw new WorkflowError(
          "BadArgument",
          `Cannot use variable "${key}": "${value}" is not true or false, and the file's default is ${fallback}`,
        );
      }
      vars[key] = value === "true";
    } else {
      vars[key] = value;
    }
  }
  return vars;
}

function checkTemplates(definition: WorkflowDefinition, vars: Record<string, WorkflowVarValue>) {
  const varNames = Object.keys(vars);
  definition.steps.forEach((step, index) => {
    const site = { step: index + 1, stepTitle: step.title, varNames };
    checkWorkflowTemplate(step.title, { ...site, field: "title" });
    checkWorkflowTemplate(step.prompt, { ...site, field: "prompt" });
  });
}

function renderStep(
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

function noneView(session: string, cwd: string): WorkflowView {
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
      { command: cliCommand("start FILE", session, cwd), description: "to start one" },
      { command: "gateway workflow list", description: "to see the workflows there are" },
    ],
  };
}

function finishedError(
  command: WorkflowCommand,
  current: WorkflowSession,
  options: { cwd: string; fileArgument: string },
) {
  const { cwd, fileArgument } = options;
  return new WorkflowError(
    "Refused",
    `Cannot ${verbOf(command)} session "${current.name}": workflow "${
      workflowName(current.file)
    }" ${current.status === "complete" ? "is complete" : "was aborted"}: start it again with ${
      cliCommand(`start ${fileArgument}`, current.name, cwd)
    }`,
  );
}

function verbOf(command: WorkflowCommand): string {
  switch (command.type) {
    case "endLoop":
      return "end the loop of";
    case "step":
      return "step";
    default:
      return command.type;
  }
}

function idleState(): WorkflowState {
  return { status: "idle", step: 0, pass: 0 };
}

function stateOf(session: WorkflowSession): WorkflowState {
  return { status: session.status, step: session.step, pass: session.pass };
}

function position(state: WorkflowState): { step: number; pass: number } {
  return { step: state.step, pass: state.pass };
}

function stampEvents(
  events: readonly {
    kind: WorkflowEventKind;
    step: number;
    pass: number | null;
    reason: string | null;
  }[],
  at: number,
): NewWorkflowSessionEvent[] {
  return events.map((event) => ({ ...event, at }));
}

function eventView(event: NewWorkflowSessionEvent): WorkflowEventView {
  return {
    at: event.at,
    time: new Date(event.at).toISOString(),
    kind: event.kind,
    step: event.step,
    pass: event.pass,
    reason: event.reason,
  };
}

function workflowName(path: string): string {
  const base = basename(path);
  const ext = extname(base);
  return ext === ".yaml" || ext === ".yml" ? base.slice(0, -ext.length) : base;
}

async function readCurrentFile(
  path: string,
): Promise<{ text: string | null; hash: string | null }> {
  try {
    const text = await Deno.readTextFile(path);
    return { text, hash: hashWorkflowText(text) };
  } catch {
    return { text: null, hash: null };
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

async function workflowFilesIn(directory: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(directory)) {
      if (entry.isFile && /\.ya?ml$/.test(entry.name)) files.push(join(directory, entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files.sort();
}
