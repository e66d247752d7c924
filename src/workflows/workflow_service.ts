/**
 * The workflow facade the CLI, RPC and HTTP call: start, step, status, reset, abort,
 * list and log, each answering a plain JSON view, persisted per session in `gateway.db`.
 * Agent-facing text for these views is in `workflow_text.ts`.
 * Seven verbs over one session state machine and its stored events.
 * @module
 */

import type { GatewayDatabase } from "../store/gateway_database.ts";
import type { WorkflowSessionStore } from "../store/gateway_store.ts";
import { sqliteWorkflowSessions } from "../store/sqlite_store.ts";
import type { NewWorkflowSessionEvent, WorkflowSession } from "../store/workflow_sessions.ts";
import {
  applyWorkflowCommand,
  IDLE_WORKFLOW_STATE,
  type WorkflowCommand,
  type WorkflowEngineEvent,
  type WorkflowShape,
  type WorkflowState,
} from "./workflow_engine.ts";
import { WorkflowError } from "./workflow_error.ts";
import {
  checkWorkflowVars,
  parseWorkflowFile,
  readWorkflowFile,
  readWorkflowSnapshot,
  type WorkflowDefinition,
  type WorkflowVarValue,
} from "./workflow_file.ts";
import { checkWorkflowTemplates } from "./workflow_template.ts";
import { checkSessionName } from "./default_session_name.ts";
import {
  cliCommand,
  eventView,
  noneWorkflowView,
  renderStepView,
  type WorkflowListView,
  type WorkflowLogView,
  type WorkflowView,
  workflowView,
} from "./workflow_view.ts";
import {
  listWorkflowFiles,
  resolveWorkflowFile,
  workflowDirectory,
  workflowFileArgument,
  workflowName,
} from "./workflow_directory.ts";

/** The session a directory uses when none is named; kept importable beside the service. */
export { defaultSessionName } from "./default_session_name.ts";

/** Options of {@linkcode WorkflowService}. */
export interface WorkflowServiceOptions {
  /** The gateway database (already open and migrated); or give `sessions`. */
  database?: GatewayDatabase;
  /** Where sessions live (SQLite or PostgreSQL); wins over `database`. */
  sessions?: WorkflowSessionStore;
  /** The root whose `workflows/` folder holds the named workflows. */
  root: string;
  /** Clock for event times, ms since the epoch. @default {Date.now} */
  now?: () => number;
}

/** Fields every session command takes. */
export interface WorkflowSessionRequest {
  /** Session name; the CLI passes `defaultSessionName(cwd)` when none is given. */
  session: string;
  /**
   * The caller's working directory: relative paths resolve against it, and the hints leave out
   * `--session` when the session is this directory's default.
   */
  cwd?: string;
}

/**
 * Workflows as a service: each method reads or changes one session and returns a plain JSON
 * view, or throws a {@linkcode WorkflowError}. State lives in the gateway database, so several
 * sessions run side by side and all of them survive a restart.
 */
export class WorkflowService {
  #sessions: WorkflowSessionStore;
  #root: string;
  #now: () => number;

  /** Serves the workflows of `root`, keeping sessions in `database`. */
  constructor(options: WorkflowServiceOptions) {
    if (options.sessions) this.#sessions = options.sessions;
    else if (options.database) this.#sessions = sqliteWorkflowSessions(options.database);
    else throw new TypeError("WorkflowService needs `sessions` or `database`");
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
    const path = await resolveWorkflowFile(request.file, { root: this.#root, cwd });
    const loaded = await readWorkflowFile(path);
    const given = checkWorkflowVars(request.vars ?? {}, loaded.definition);
    const vars = { ...loaded.definition.vars, ...given };
    checkWorkflowTemplates(loaded.definition, vars);
    const transition = applyWorkflowCommand(
      IDLE_WORKFLOW_STATE,
      { type: "start" },
      loaded.definition,
    );
    const at = this.#now();
    const step = renderStepView(loaded.definition, transition.state, { session, vars });
    const outcome = await this.#sessions.createUnlessRunning(
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
    if ("running" in outcome) {
      const previous = outcome.running;
      throw new WorkflowError(
        "Refused",
        `Cannot start workflow "${request.file}" in session "${session}": workflow "${
          workflowName(previous.file)
        }" is still running there (step ${previous.step + 1}): abort it first with ${
          cliCommand(`abort --reason "…"`, { session, cwd })
        }, or use another --session`,
      );
    }
    return await this.#view(outcome.created, loaded.definition, {
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
    const current = await this.#sessions.latest(session);
    if (current === null) return noneWorkflowView(session, cwd);
    const definition = parseWorkflowFile(current.fileText, current.file);
    const disk = await readWorkflowSnapshot(current.file);
    const vars = { ...definition.vars, ...current.vars };
    const step = current.status === "running"
      ? renderStepView(definition, stateOf(current), { session, vars })
      : null;
    return await this.#view(current, definition, {
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
    const directory = workflowDirectory(request.root ?? this.#root);
    const files: WorkflowListView["files"] = [];
    for (const path of await listWorkflowFiles(directory)) {
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
    for (const running of await this.#sessions.running()) {
      const disk = await readWorkflowSnapshot(running.file);
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
  async log(request: WorkflowSessionRequest): Promise<WorkflowLogView> {
    const session = checkSessionName(request.session);
    const current = await this.#sessions.latest(session);
    if (current === null) return { view: "log", session, status: "none", file: null, events: [] };
    return {
      view: "log",
      session,
      status: current.status,
      file: current.file,
      events: (await this.#sessions.events(current.id)).map(eventView),
    };
  }

  async #change(
    request: WorkflowSessionRequest,
    command: WorkflowCommand,
    options: { requireSameFile: boolean },
  ): Promise<WorkflowView> {
    const session = checkSessionName(request.session);
    const cwd = request.cwd ?? Deno.cwd();
    const before = await this.#sessions.latest(session);
    if (before === null) {
      throw new WorkflowError(
        "NoSession",
        `Cannot ${
          verbOf(command)
        } session "${session}": no workflow was started in it: start one with ${
          cliCommand("start FILE", { session, cwd })
        } (see gateway workflow list)`,
      );
    }
    const disk = await readWorkflowSnapshot(before.file);
    const fileChanged = disk.hash !== before.fileHash;
    if (options.requireSameFile && fileChanged && before.status === "running") {
      throw new WorkflowError(
        "FileChanged",
        `Cannot ${verbOf(command)} session "${session}": workflow file "${before.file}" ${
          disk.text === null ? "was deleted" : "changed"
        } since the session started: run ${
          cliCommand("reset", { session, cwd })
        } to start over with the file as it is now, or ${
          cliCommand(`abort --reason "…"`, { session, cwd })
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
      checkWorkflowTemplates(definition, { ...definition.vars, ...before.vars });
      adopt = { fileHash: disk.hash, fileText: disk.text };
    } else {
      definition = parseWorkflowFile(before.fileText, before.file);
    }
    const vars = { ...definition.vars, ...before.vars };
    const at = this.#now();
    let outcome: {
      session: WorkflowSession;
      events: NewWorkflowSessionEvent[];
      step: WorkflowView["step"];
    } | null = null;
    for (let attempt = 0; outcome === null; attempt++) {
      // Decide from where the session is now, and move it only if it is still there: another
      // client (or instance) may move it meanwhile, and then we decide again from its new place.
      const current = attempt === 0 ? before : await this.#sessions.latest(session);
      if (attempt > MAX_MOVE_ATTEMPTS) {
        throw new WorkflowError(
          "Refused",
          `Cannot ${verbOf(command)} session "${session}": other clients keep moving it; retry`,
        );
      }
      if (current === null || current.id !== before.id || current.fileHash !== before.fileHash) {
        throw new WorkflowError(
          "Refused",
          `Cannot ${
            verbOf(command)
          } session "${session}": it was started again or reset meanwhile: run ${
            cliCommand("status", { session, cwd })
          } to see where it is`,
        );
      }
      if (current.status !== "running" && command.type !== "reset") {
        throw finishedError(command, current, {
          cwd,
          fileArgument: workflowFileArgument(current.file, this.#root),
        });
      }
      const transition = applyWorkflowCommand(
        stateOf(current),
        command,
        shapeShown(definition, { state: stateOf(current), session, vars }),
      );
      const events = stampEvents(transition.events, at);
      const step = transition.state.status === "running"
        ? renderStepView(definition, transition.state, { session, vars })
        : null;
      const status = transition.state.status === "idle" ? "running" : transition.state.status;
      const moved = await this.#sessions.advance(current.id, current, {
        status,
        ...position(transition.state),
        at,
        ...(adopt === undefined ? {} : { file: adopt }),
        events,
      });
      if (moved) {
        outcome = {
          session: {
            ...current,
            status,
            ...position(transition.state),
            updatedAt: at,
            ...(adopt === undefined ? {} : adopt),
          },
          events,
          step,
        };
      }
    }
    return await this.#view(outcome.session, definition, {
      cwd,
      step: outcome.step,
      events: outcome.events,
      fileChanged: adopt === undefined ? fileChanged : false,
    });
  }

  async #view(
    session: WorkflowSession,
    definition: WorkflowDefinition,
    details: {
      cwd: string;
      step: WorkflowView["step"];
      events: readonly NewWorkflowSessionEvent[];
      fileChanged: boolean;
    },
  ): Promise<WorkflowView> {
    const abort = session.status !== "aborted"
      ? undefined
      : details.events.findLast((event) => event.kind === "abort") ??
        (await this.#sessions.events(session.id)).findLast((event) => event.kind === "abort");
    return workflowView(session, {
      ...details,
      definition,
      root: this.#root,
      abortReason: abort?.reason ?? null,
    });
  }
}

/** How often a move is decided again after other clients moved the session first. */
const MAX_MOVE_ATTEMPTS = 50;

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
      cliCommand(`start ${fileArgument}`, { session: current.name, cwd })
    }`,
  );
}

/**
 * The engine's view of `definition` with the current step's title rendered as the agent saw it,
 * so a refusal names "Review round 1 of up to 4", not the template behind it.
 */
function shapeShown(
  definition: WorkflowDefinition,
  context: { state: WorkflowState; session: string; vars: Record<string, WorkflowVarValue> },
): WorkflowShape {
  const { state, session, vars } = context;
  let shown: string | null = null;
  if (state.status === "running") {
    try {
      shown = renderStepView(definition, state, { session, vars }).title;
    } catch {
      // A step that cannot render keeps its template title; the refusal still makes sense.
    }
  }
  return {
    steps: definition.steps.map((step, index) => ({
      title: index === state.step && shown !== null ? shown : step.title,
      loop: step.loop,
    })),
  };
}

function verbOf(command: WorkflowCommand): string {
  return command.type === "endLoop" ? "end the loop of" : command.type;
}

function stateOf(session: WorkflowSession): WorkflowState {
  return { status: session.status, step: session.step, pass: session.pass };
}

function position(state: WorkflowState): { step: number; pass: number } {
  return { step: state.step, pass: state.pass };
}

function stampEvents(
  events: readonly WorkflowEngineEvent[],
  at: number,
): NewWorkflowSessionEvent[] {
  return events.map((event) => ({ ...event, at }));
}
