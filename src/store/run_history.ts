/**
 * Run history: every run and its tool calls, written to `gateway.db` before the run's
 * result is returned, with secrets redacted and outputs capped; listing, lookup and retention.
 * The write and read paths share the redaction, capping and row shapes, so they live together.
 * @module
 */

import { maskSecrets, secretForms } from "../config/secret_mask.ts";
import { Buffer } from "node:buffer";
import type { SQLInputValue } from "node:sqlite";
import { type FailureKind, isFailureKind } from "../protocol/run_document.ts";
import type { GatewayDatabase } from "./gateway_database.ts";
import { InvalidArgumentError } from "../protocol/invalid_argument_error.ts";
import { messageOf } from "../protocol/message_of.ts";

/** One tool call a run made, as history keeps it. */
export interface ToolCallRecord {
  namespace: string;
  tool: string;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
  ok: boolean;
  /** Why the call failed (`ToolError`, `ToolTimeout`, `PolicyDenied` …); null when it worked. */
  errorKind: string | null;
  /** The answer to a call an `ask` policy rule held: allowed or not, by whom, when (ms). */
  approval?: { allowed: boolean; by: string; at: number } | null;
  /**
   * What the call answered, for the run details: its value as JSON text when it worked, its
   * error message when it failed. Stored redacted and cut to {@linkcode CALL_RESULT_CAP_BYTES}
   * with a `…[N more bytes]` note; absent when the call answered nothing.
   */
  result?: string | null;
  /** Whole size of `result` in UTF-8 bytes when the caller kept only a head of it. */
  resultTotalBytes?: number;
}

/** Most bytes of one tool call's result kept in history (the run details show a head). */
export const CALL_RESULT_CAP_BYTES = 4096;

/** What the executor hands to {@linkcode RunHistory.record} when a run ends. */
export interface RunRecord {
  runId: string;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
  source: string;
  args: string[];
  stdinBytes: number;
  cwd: string;
  /** Who asked: `cli`, `ws`, `http`, `mcp` … */
  client: string;
  status: "ok" | "failed";
  errorKind: FailureKind | null;
  errorMessage: string | null;
  stdout: string;
  stderr: string;
  /** The run's result as JSON text, or null when it had none. */
  result: string | null;
  exitCode: number | null;
  toolCalls: ToolCallRecord[];
  /** The named script that ran, or null for an inline snippet. */
  name: string | null;
  /**
   * Whole size of stdout/stderr when the caller captured only a head of them (a flood is cut
   * before it reaches history); makes the stored record say it was capped and by how much.
   */
  stdoutTotalBytes?: number;
  stderrTotalBytes?: number;
}

/** A run as stored: the record after redaction and capping, with what the caps removed. */
export interface StoredRun extends RunRecord {
  /** Size of the whole stdout before capping, in UTF-8 bytes. */
  stdoutBytes: number;
  stdoutCapped: boolean;
  stderrBytes: number;
  stderrCapped: boolean;
  /** The result was larger than the cap and was not stored (`result` is null). */
  resultCapped: boolean;
}

/** One line of `gateway history`: enough to pick a run, not its outputs. */
export interface RunSummary {
  runId: string;
  startedAt: number;
  durationMs: number;
  name: string | null;
  status: "ok" | "failed";
  errorKind: FailureKind | null;
  client: string;
  cwd: string;
  toolCalls: number;
  /** The source's first non-empty line, at most 80 characters. */
  preview: string;
}

/** A tool call an `ask` policy rule held, with its answer, as the dashboard lists it. */
export interface AnsweredApproval {
  runId: string;
  namespace: string;
  tool: string;
  /** When the call started (ms since the epoch). */
  startedAt: number;
  allowed: boolean;
  /** Who answered: `cli`, `dashboard`, `mcp`, … or `deadline` when nobody did in time. */
  by: string;
  /** When it was answered (ms since the epoch). */
  at: number;
}

/** Selects the answered approvals, newest first; both stores run it (`?`/`$1` is the limit). */
export function answeredApprovalsQuery(limitParameter: string): string {
  return `SELECT r.id AS run_id, c.namespace, c.tool, c.started_at, c.approval
    FROM tool_calls c JOIN runs r ON r.rid = c.run_rid
    WHERE c.approval IS NOT NULL
    ORDER BY c.started_at DESC, c.run_rid DESC, c.seq DESC LIMIT ${limitParameter}`;
}

/** An {@linkcode AnsweredApproval} from a row of {@linkcode answeredApprovalsQuery}. */
export function answeredApprovalOf(row: Record<string, unknown>): AnsweredApproval {
  const approval = JSON.parse(String(row.approval)) as NonNullable<ToolCallRecord["approval"]>;
  return {
    runId: String(row.run_id),
    namespace: String(row.namespace),
    tool: String(row.tool),
    startedAt: Number(row.started_at),
    allowed: approval.allowed,
    by: approval.by,
    at: approval.at,
  };
}

/** Options of {@linkcode RunHistory}. */
export interface RunHistoryOptions {
  /**
   * Values replaced by `[REDACTED]` before anything is stored (config `history.redact` and
   * every `${env:…}` expansion). Empty values and values shorter than 4 characters are ignored,
   * since replacing them would shred ordinary text.
   * @default {[]}
   */
  secrets?: readonly string[];
  /**
   * Most bytes of stdout, of stderr and of the result kept per run.
   * @default {1048576}
   */
  maxOutputBytes?: number;
  /** Clock for retention by age, in ms since the epoch. @default {Date.now} */
  now?: () => number;
}

const PRUNE_BATCH = 500;
const DAY_MS = 86_400_000;

/**
 * The run history table of the gateway database. The executor calls {@linkcode record} after a
 * run and before answering it, so an acknowledged run is always on disk.
 */
export class RunHistory {
  #db: GatewayDatabase;
  #redactor: HistoryRedactor;
  #now: () => number;

  /** Uses `database` (already migrated) for storage. */
  constructor(database: GatewayDatabase, options: RunHistoryOptions = {}) {
    this.#db = database;
    this.#redactor = new HistoryRedactor(options);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Writes `run` and its tool calls in one transaction and returns once it is committed. A throw
   * means nothing was stored: the caller reports `history: "failed"` and still answers the run.
   */
  record(run: RunRecord): void {
    const values: Record<string, SQLInputValue> = { ...this.#redactor.row(run) };
    const columns = Object.keys(values);
    const insertRun = this.#db.prepare(
      `INSERT INTO runs (${columns.join(", ")}) VALUES (${columns.map((c) => `:${c}`).join(", ")})`,
    );
    const insertCall = this.#db.prepare(
      `INSERT INTO tool_calls
         (run_rid, seq, namespace, tool, started_at, duration_ms, ok, error_kind, approval,
          result)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    try {
      this.#db.transaction(() => {
        const { lastInsertRowid } = insertRun.run(values);
        run.toolCalls.forEach((call, seq) => {
          insertCall.run(
            lastInsertRowid,
            seq,
            call.namespace,
            call.tool,
            call.startedAt,
            call.durationMs,
            call.ok ? 1 : 0,
            call.errorKind,
            call.approval ? JSON.stringify(call.approval) : null,
            this.#redactor.callResult(call),
          );
        });
      });
    } catch (error) {
      throw new Error(`Cannot record run "${run.runId}" in history: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** Runs newest first, for `gateway history [--limit N] [--failed]`. */
  list(options: { limit: number; failed?: boolean; offset?: number }): RunSummary[] {
    const { limit, failed = false, offset = 0 } = options;
    const rows = this.#db.prepare(
      `SELECT id, started_at, duration_ms, name, status, error_kind, client, cwd, tool_call_count,
              substr(source, 1, 2000) AS head
       FROM runs ${failed ? "WHERE status = 'failed'" : ""}
       ORDER BY started_at DESC, rid DESC LIMIT ? OFFSET ?`,
    ).all(Math.max(0, Math.trunc(limit)), Math.max(0, Math.trunc(offset)));
    return rows.map(runSummaryOf);
  }

  /**
   * The whole stored run with its tool calls, or null when there is none. `runId` may also be a
   * prefix of at least 6 characters that matches exactly one run (as `gateway history show`
   * prints short ids); an ambiguous prefix throws an `InvalidArgumentError` naming the matches.
   */
  get(runId: string): StoredRun | null {
    let row = this.#db.prepare("SELECT * FROM runs WHERE id = ?").get(runId);
    if (row === undefined && runId.length >= 6) {
      const matches = this.#db.prepare(
        "SELECT * FROM runs WHERE substr(id, 1, length(?1)) = ?1 ORDER BY started_at LIMIT 6",
      ).all(runId);
      if (matches.length > 1) {
        const ids = matches.slice(0, 5).map((m) => `"${String(m.id)}"`).join(", ");
        throw new InvalidArgumentError(
          `Cannot find run "${runId}": the prefix matches several runs: ${ids}${
            matches.length > 5 ? ", …" : ""
          }`,
        );
      }
      row = matches[0];
    }
    if (row === undefined) return null;
    const calls = this.#db.prepare(
      `SELECT namespace, tool, started_at, duration_ms, ok, error_kind, approval, result
       FROM tool_calls WHERE run_rid = ? ORDER BY seq`,
    ).all(row.rid ?? null);
    return storedRunOf(row, calls);
  }

  /** The newest `limit` tool calls an `ask` policy held, with their answers. */
  answeredApprovals(limit: number): AnsweredApproval[] {
    return this.#db.prepare(answeredApprovalsQuery("?")).all(Math.max(0, Math.trunc(limit)))
      .map(answeredApprovalOf);
  }

  /** How many runs are stored (all, or only failed ones). */
  count(options: { failed?: boolean } = {}): number {
    const row = this.#db.prepare(
      `SELECT count(*) AS n FROM runs ${options.failed ? "WHERE status = 'failed'" : ""}`,
    ).get();
    return Number(row?.n ?? 0);
  }

  /**
   * Retention (config `history.maxRuns`, `history.maxAgeDays`): deletes runs older than
   * `maxAgeDays` and all but the newest `maxRuns`, in transactions of at most 500 runs so a
   * concurrent writer never waits long, then returns the freed pages to the file system.
   */
  prune(options: { maxRuns: number; maxAgeDays: number }): { deleted: number } {
    const cutoff = this.#now() - options.maxAgeDays * DAY_MS;
    const keep = Math.max(0, Math.trunc(options.maxRuns));
    const byAge = this.#db.prepare(
      `DELETE FROM runs WHERE rid IN (SELECT rid FROM runs WHERE started_at < ? LIMIT ${PRUNE_BATCH})`,
    );
    const byCount = this.#db.prepare(
      `DELETE FROM runs WHERE rid IN (
         SELECT rid FROM runs ORDER BY started_at DESC, rid DESC LIMIT ${PRUNE_BATCH} OFFSET ?)`,
    );
    let deleted = 0;
    for (;;) {
      const changes = Number(this.#db.transaction(() => byAge.run(cutoff)).changes);
      deleted += changes;
      if (changes < PRUNE_BATCH) break;
    }
    for (;;) {
      const changes = Number(this.#db.transaction(() => byCount.run(keep)).changes);
      deleted += changes;
      if (changes < PRUNE_BATCH) break;
    }
    if (deleted > 0) {
      this.#db.incrementalVacuum();
      this.#db.checkpoint();
    }
    return { deleted };
  }
}

/** The columns of one `runs` row, as both stores write them. */
export type RunRow = Record<string, string | number | null>;

/**
 * Turns a {@linkcode RunRecord} into the `runs` row history stores: secrets redacted, outputs
 * capped. Shared by the SQLite and PostgreSQL stores so both keep exactly the same text.
 */
export class HistoryRedactor {
  #secrets: string[];
  #maxOutputBytes: number;

  /** Takes `secrets` and `maxOutputBytes` from the history options. */
  constructor(options: Pick<RunHistoryOptions, "secrets" | "maxOutputBytes"> = {}) {
    this.#secrets = secretForms(options.secrets ?? []);
    this.#maxOutputBytes = options.maxOutputBytes ?? 1_048_576;
  }

  /** The row to insert for `run` (without `rid`). */
  row(run: RunRecord): RunRow {
    const cap = this.#maxOutputBytes;
    const stdout = this.#redactAndCap(run.stdout, cap, run.stdoutTotalBytes);
    const stderr = this.#redactAndCap(run.stderr, cap, run.stderrTotalBytes);
    const result = run.result === null ? null : this.#redactAndCap(run.result, cap);
    const resultCapped = result !== null && result.capped;
    return {
      id: run.runId,
      started_at: run.startedAt,
      duration_ms: run.durationMs,
      name: run.name === null ? null : this.#redact(run.name),
      source: this.#redact(run.source),
      args: JSON.stringify(run.args.map((arg) => this.#redact(arg))),
      stdin_bytes: run.stdinBytes,
      cwd: this.#redact(run.cwd),
      client: run.client,
      status: run.status,
      error_kind: run.errorKind,
      error_message: run.errorMessage === null ? null : this.#redact(run.errorMessage),
      stdout: stdout.text,
      stdout_bytes: Math.max(stdout.bytes, run.stdoutTotalBytes ?? 0),
      stdout_capped: stdout.capped || (run.stdoutTotalBytes ?? 0) > stdout.bytes ? 1 : 0,
      stderr: stderr.text,
      stderr_bytes: Math.max(stderr.bytes, run.stderrTotalBytes ?? 0),
      stderr_capped: stderr.capped || (run.stderrTotalBytes ?? 0) > stderr.bytes ? 1 : 0,
      result: result === null || resultCapped ? null : result.text,
      result_capped: resultCapped ? 1 : 0,
      exit_code: run.exitCode,
      tool_call_count: run.toolCalls.length,
    };
  }

  /**
   * The `result` column of one `tool_calls` row: the call's result redacted and cut to
   * {@linkcode CALL_RESULT_CAP_BYTES}, ending in `…[N more bytes]` when it was cut; null when
   * the call answered nothing.
   */
  callResult(call: ToolCallRecord): string | null {
    if (call.result === undefined || call.result === null) return null;
    const kept = this.#redactAndCap(call.result, CALL_RESULT_CAP_BYTES, call.resultTotalBytes);
    const total = Math.max(kept.bytes, call.resultTotalBytes ?? 0);
    if (!kept.capped && total === kept.bytes) return kept.text;
    // What the call answered beyond the head kept (counted before redaction).
    return `${kept.text}…[${total - Buffer.byteLength(kept.text, "utf8")} more bytes]`;
  }

  #redact(text: string): string {
    return maskSecrets(text, this.#secrets);
  }

  /**
   * Redacts, then keeps at most `cap` UTF-8 bytes. Only a prefix a little longer than the cap is
   * redacted, so a 100 MB stdout costs no 100 MB copies; a secret cut by that prefix is dropped
   * too, never stored in part.
   */
  #redactAndCap(
    text: string,
    cap: number,
    totalBytes?: number,
  ): { text: string; bytes: number; capped: boolean } {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes <= cap) {
      // Text already cut before it reached us (the capture kept its head) may end in the first
      // characters of a secret whose rest was dropped: those go too.
      const cutUpstream = (totalBytes ?? 0) > bytes;
      const redacted = this.#redact(text);
      return {
        text: cutUpstream ? dropPartialSecret(redacted, this.#secrets) : redacted,
        bytes,
        capped: false,
      };
    }
    const longest = this.#secrets.reduce((n, s) => Math.max(n, s.length), 0);
    // `cap` bytes hold at most `cap` characters; the extra covers secrets crossing the cut.
    const cut = text.length > cap + longest;
    let head = this.#redact(cut ? text.slice(0, cap + longest) : text);
    if (cut) head = dropPartialSecret(head, this.#secrets);
    const kept = truncateUtf8(head, cap);
    return { text: kept, bytes, capped: true };
  }
}

/** A `history` list line from a `runs` row selected with `substr(source, 1, 2000) AS head`. */
export function runSummaryOf(row: Record<string, unknown>): RunSummary {
  return {
    runId: String(row.id),
    startedAt: Number(row.started_at),
    durationMs: Number(row.duration_ms),
    name: nullableString(row.name),
    status: row.status === "ok" ? "ok" : "failed",
    errorKind: failureKindOf(row.error_kind),
    client: String(row.client),
    cwd: String(row.cwd),
    toolCalls: Number(row.tool_call_count),
    preview: previewOf(String(row.head)),
  };
}

/** A whole stored run from its `runs` row and its `tool_calls` rows in order. */
export function storedRunOf(
  row: Record<string, unknown>,
  calls: readonly Record<string, unknown>[],
): StoredRun {
  return {
    runId: String(row.id),
    startedAt: Number(row.started_at),
    durationMs: Number(row.duration_ms),
    source: String(row.source),
    args: parseArgs(row.args),
    stdinBytes: Number(row.stdin_bytes),
    cwd: String(row.cwd),
    client: String(row.client),
    status: row.status === "ok" ? "ok" : "failed",
    errorKind: failureKindOf(row.error_kind),
    errorMessage: nullableString(row.error_message),
    stdout: String(row.stdout),
    stdoutBytes: Number(row.stdout_bytes),
    stdoutCapped: Number(row.stdout_capped) === 1,
    stderr: String(row.stderr),
    stderrBytes: Number(row.stderr_bytes),
    stderrCapped: Number(row.stderr_capped) === 1,
    result: nullableString(row.result),
    resultCapped: Number(row.result_capped) === 1,
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    name: nullableString(row.name),
    toolCalls: calls.map((call) => ({
      namespace: String(call.namespace),
      tool: String(call.tool),
      startedAt: Number(call.started_at),
      durationMs: Number(call.duration_ms),
      ok: Number(call.ok) === 1,
      errorKind: nullableString(call.error_kind),
      ...(typeof call.approval === "string"
        ? { approval: JSON.parse(call.approval) as NonNullable<ToolCallRecord["approval"]> }
        : {}),
      ...(typeof call.result === "string" ? { result: call.result } : {}),
    })),
  };
}

/** Every stored form of each secret: as written, and as it appears inside JSON strings. */
/** Removes a trailing beginning of a secret (`…sk-te` when `sk-test-1` is a secret). */
function dropPartialSecret(text: string, secrets: readonly string[]): string {
  let cut = 0;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n > cut; n--) {
      if (text.endsWith(secret.slice(0, n))) {
        cut = n;
        break;
      }
    }
  }
  return cut === 0 ? text : text.slice(0, text.length - cut);
}

function truncateUtf8(text: string, maxBytes: number): string {
  let head = text.slice(0, maxBytes);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  const encoded = Buffer.from(head, "utf8");
  if (encoded.length <= maxBytes) return head;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString("utf8");
}

function previewOf(source: string): string {
  const line = source.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function parseArgs(value: unknown): string[] {
  try {
    const parsed: unknown = JSON.parse(String(value));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function nullableString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** A stored kind this version does not know (written by a newer gateway) reads as null. */
function failureKindOf(value: unknown): FailureKind | null {
  return isFailureKind(value) ? value : null;
}
