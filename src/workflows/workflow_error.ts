/**
 * The one error type of the workflow feature: bad files, bad templates and refused commands,
 * each with a code callers (CLI, RPC router) branch on.
 * @module
 */

/** What went wrong, for callers that map workflow errors to exit codes or wire errors. */
export type WorkflowErrorCode =
  /** The YAML file is malformed or does not match the schema. */
  | "BadFile"
  /** A step's template does not parse or uses an unknown variable or helper. */
  | "BadTemplate"
  /** No workflow file by that name or path. */
  | "NotFound"
  /** The session has no workflow, or none that is still running. */
  | "NoSession"
  /** The command is not allowed now (end-loop before `min`, step after completion …). */
  | "Refused"
  /** The workflow file changed (or vanished) under a running session. */
  | "FileChanged"
  /** A bad argument: empty session name, empty reason, malformed `--var`. */
  | "BadArgument";

/** Where in a workflow file a problem is, 1-based. */
export interface WorkflowErrorLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * Raised by workflow files, templates, the engine and the service. The CLI prints its message as
 * is; the router sends `code` (and the location, when there is one) in the JSON-RPC error data.
 */
export class WorkflowError extends Error {
  /** Which kind of problem this is. */
  readonly code: WorkflowErrorCode;
  /** File, line and column of the problem, for file and template errors. */
  readonly location: WorkflowErrorLocation | null;

  /** Builds the error; `location` is null unless the problem sits in a file. */
  constructor(
    code: WorkflowErrorCode,
    message: string,
    options: { location?: WorkflowErrorLocation | null; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "WorkflowError";
    this.code = code;
    this.location = options.location ?? null;
  }
}
