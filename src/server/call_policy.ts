/**
 * Policy rules (SPEC §13) applied to each call before anything is sent: first match wins;
 * `deny` fails the call, `ask` holds it in {@linkcode Approvals} until someone answers.
 * @module
 */

import type { GatewayConfig } from "../config/gateway_config.ts";
import { DEFAULT_ACTION_ANNOTATION, ToolCallError } from "../namespaces/namespace.ts";
import type { ApprovalDecision, Approvals } from "./approvals.ts";

/** What a {@linkcode CallPolicy} needs. */
export interface CallPolicyOptions {
  /** The rule list, read at each call so a config reload takes effect at once. */
  rules: () => GatewayConfig["policy"];
  approvals: Approvals;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/** Decides each call by the first matching rule; else the tool's default action, else allow. */
export class CallPolicy {
  readonly #options: CallPolicyOptions;

  constructor(options: CallPolicyOptions) {
    this.#options = options;
  }

  /** Holds a question of an upstream during a run's call: see {@linkcode askForUpstream}. */
  askForUpstream(
    call: {
      namespace: string;
      tool: string;
      runId: string;
      signal: AbortSignal;
      deadline?: number;
    },
    question: { message: string; fields: Record<string, unknown> },
  ): Promise<ApprovalDecision> {
    this.#options.log("an upstream's question waits for approval", {
      runId: call.runId,
      call: `${call.namespace}.${call.tool}`,
    });
    return askForUpstream(this.#options.approvals, call, question);
  }

  /**
   * Applies the first matching policy rule (SPEC §13): `deny` fails the call before anything is
   * sent; `ask` holds it until someone answers or the run ends (denied). Only a run can wait
   * for an answer; a direct call under `ask` is denied with the reason. Returns undefined when
   * no rule applies (the usual gateway.json), so the call goes on in the same turn (issue 12).
   */
  check(
    namespace: string,
    tool: string,
    args: unknown,
    context: {
      annotations: Record<string, unknown> | undefined;
      runId: string | undefined;
      signal: AbortSignal;
      /** When the run times out (epoch ms): a hold ends a little before, as PolicyDenied. */
      deadline?: number | undefined;
      onApproval: ((decision: ApprovalDecision) => void) | undefined;
      /**
       * Other spellings of the same tool (`everything.get_env` for `everything.get-env`): a
       * rule written with the identifier or the original name matches (SPEC §14).
       */
      aliases?: readonly string[];
    },
  ): Promise<void> | undefined {
    const configured = this.#options.rules();
    const fallback = defaultRule(namespace, context.annotations);
    // No rule at all (the usual gateway.json): every call is allowed without building the
    // rule list and the call's paths (issue 12: this runs on every call).
    if (configured.length === 0 && fallback.length === 0) return undefined;
    return this.#apply(namespace, tool, args, context, [...configured, ...fallback]);
  }

  async #apply(
    namespace: string,
    tool: string,
    args: unknown,
    context: Parameters<CallPolicy["check"]>[3],
    rules: Array<GatewayConfig["policy"][number] & { reason?: string }>,
  ): Promise<void> {
    const paths = [`${namespace}.${tool}`, ...context.aliases ?? []];
    for (const rule of rules) {
      if (!paths.some((path) => globMatch(rule.match, path))) continue;
      if (rule.when && context.annotations?.[rule.when] !== true) continue;
      const described = rule.reason ??
        `rule "${rule.match}"${rule.when ? ` when ${rule.when}` : ""}`;
      if (rule.action === "allow") return;
      if (rule.action === "deny") {
        throw new ToolCallError(
          "PolicyDenied",
          `Policy denies ${namespace}.${tool} (${described}): change the policy in gateway.json to allow it`,
        );
      }
      if (context.runId === undefined) {
        throw new ToolCallError(
          "PolicyDenied",
          `Policy asks for approval of ${namespace}.${tool} (${described}); only calls from a run can wait for one: run it in a script`,
        );
      }
      this.#options.log("tool call waits for approval", {
        runId: context.runId,
        call: `${namespace}.${tool}`,
      });
      const holdMs = context.deadline === undefined ? undefined : holdTime(context.deadline);
      const decision = await this.#options.approvals.request({
        runId: context.runId,
        namespace: namespace,
        tool,
        args,
        rule: described,
        signal: context.signal,
        ...(holdMs !== undefined ? { timeoutMs: holdMs } : {}),
      });
      context.onApproval?.(decision);
      if (decision.allowed) return;
      throw new ToolCallError(
        "PolicyDenied",
        decision.by === "deadline"
          ? `${namespace}.${tool} needed approval (${described}) and was not answered within ${
            seconds(holdMs)
          }: denied (answer with gateway approve ${context.runId}, or give the run a longer timeout)`
          : `${namespace}.${tool} was denied by ${decision.by} (${described})`,
      );
    }
  }
}

/**
 * Holds a question an upstream asks during `namespace.tool` (an MCP elicitation) in
 * `approvals`, as an `ask` rule holds a call: answered by `gateway approve`, the dashboard or an
 * MCP host; unanswered shortly before the run's deadline, or when the run ends, it is a no.
 */
export function askForUpstream(
  approvals: Approvals,
  call: { namespace: string; tool: string; runId: string; signal: AbortSignal; deadline?: number },
  question: { message: string; fields: Record<string, unknown> },
): Promise<ApprovalDecision> {
  const holdMs = call.deadline === undefined ? undefined : holdTime(call.deadline);
  return approvals.request({
    runId: call.runId,
    namespace: call.namespace,
    tool: call.tool,
    args: question.fields,
    rule: `MCP server "${call.namespace}" asks: ${question.message}`,
    signal: call.signal,
    ...(holdMs !== undefined ? { timeoutMs: holdMs } : {}),
  });
}

/**
 * How long a call may be held: until shortly before the run's deadline, so an unanswered call
 * fails as `PolicyDenied` (SPEC §13) and the script can still handle it, not as `Timeout`.
 */
function holdTime(deadline: number): number {
  const remaining = deadline - Date.now();
  return Math.max(0, remaining - Math.min(2000, Math.max(100, remaining / 4)));
}

function seconds(ms: number | undefined): string {
  if (ms === undefined) return "the run's time";
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The rule that applies when no configured one matches: a namespace may ask for one per tool
 * (an API's calls that change something are `ask` unless its `writes` says otherwise). Only
 * `ask` and `deny` are honoured, so a tool can make itself stricter, never looser.
 */
function defaultRule(
  namespace: string,
  annotations: Record<string, unknown> | undefined,
): ReadonlyArray<{ match: string; action: "ask" | "deny"; reason: string }> {
  const action = annotations?.[DEFAULT_ACTION_ANNOTATION];
  if (action !== "ask" && action !== "deny") return NO_RULES;
  return [{
    match: "*",
    action,
    reason:
      `default for calls that change something in API "${namespace}"; set "apis.${namespace}.writes" or a policy rule to change it`,
  }];
}

const NO_RULES: ReadonlyArray<never> = [];

/** Compiled globs by pattern: policy rules are few and checked on every call. */
const GLOB_CACHE = new Map<string, RegExp>();
const GLOB_CACHE_LIMIT = 1024;

/** Matches `ns.tool` against a glob where `*` is any run of characters. */
export function globMatch(pattern: string, text: string): boolean {
  let regex = GLOB_CACHE.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(
      `^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`,
    );
    if (GLOB_CACHE.size >= GLOB_CACHE_LIMIT) GLOB_CACHE.clear();
    GLOB_CACHE.set(pattern, regex);
  }
  return regex.test(text);
}
