/**
 * The policy gate: rules (first match wins) applied to the request a call will execute, before
 * anything is sent. It judges every tool the request runs (each root field of a GraphQL
 * document, by the tool it is), with the arguments as they go out, so a rule is never checked
 * on one name while another thing executes. `deny` fails the call; `ask` holds it in
 * {@linkcode Approvals} until someone answers.
 * @module
 */

import type { GatewayConfig, PolicyRule } from "../config/gateway_config.ts";
import { DEFAULT_ACTION_ANNOTATION, ToolCallError } from "../namespaces/namespace.ts";
import type { ApprovalDecision, Approvals } from "./approvals.ts";
import { type ArgsMatcher, compileArgsConditions } from "./args_condition.ts";

/** What a {@linkcode CallPolicy} needs. */
export interface CallPolicyOptions {
  /** The rule list, read at each call so a config reload takes effect at once. */
  rules: () => GatewayConfig["policy"];
  approvals: Approvals;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** The root directory, which `ROOT` in an argument glob stands for. */
  root: string;
}

/** One tool a request runs, as rules name it. */
export interface PolicyTarget {
  /** The tool's original name in its namespace. */
  tool: string;
  /**
   * Other spellings of the same tool (`everything.get_env` for `everything.get-env`): a rule
   * written with the identifier or the original name matches.
   */
  aliases: readonly string[];
  annotations: Record<string, unknown> | undefined;
}

/** The normalised request the gate judges: what will execute, not what was asked for. */
export interface PolicyRequest {
  namespace: string;
  /** Every tool the request runs; never empty. */
  targets: readonly PolicyTarget[];
  /** The arguments as they go out. */
  args: Readonly<Record<string, unknown>>;
}

/** How the call waits, when a rule asks. */
export interface PolicyContext {
  runId: string | undefined;
  signal: AbortSignal;
  /** When the run times out (epoch ms): a hold ends a little before, as PolicyDenied. */
  deadline?: number | undefined;
  onApproval: ((decision: ApprovalDecision) => void) | undefined;
}

type Rule = PolicyRule & { reason?: string };

/** A rule's decision on one target. */
interface Verdict {
  target: PolicyTarget;
  action: "allow" | "deny" | "ask";
  described: string;
}

/**
 * Decides each request: every target by the first matching rule, else the tool's default
 * action, else allow; the strictest verdict of all targets is the request's (deny, then ask).
 */
export class CallPolicy {
  readonly #options: CallPolicyOptions;
  /** Compiled argument conditions by rule object (a reload brings new objects). */
  readonly #matchers = new WeakMap<object, ArgsMatcher>();

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
   * Whether no rule could apply to a call of a tool with `annotations` (no rule configured, no
   * default action): the caller may then skip building the request (this runs on every call).
   */
  idle(annotations: Record<string, unknown> | undefined): boolean {
    return this.#options.rules().length === 0 &&
      !hasDefaultAction({ annotations });
  }

  /**
   * Applies the rules to `request`: `deny` fails the call before anything is sent; `ask`
   * holds it until someone answers or the run ends (denied). Only a run can wait for an
   * answer; a direct call under `ask` is denied with the reason. Returns undefined when no
   * rule applies (the usual gateway.json), so the call goes on in the same turn.
   */
  check(request: PolicyRequest, context: PolicyContext): Promise<void> | undefined {
    const configured = this.#options.rules();
    // No rule at all (the usual gateway.json): every call is allowed without building the
    // rule list and the call's paths (this runs on every call).
    if (configured.length === 0 && request.targets.every((t) => !hasDefaultAction(t))) {
      return undefined;
    }
    const verdicts = request.targets.map((target) => this.#judge(request, target, configured));
    const denied = verdicts.find((v) => v.action === "deny");
    if (denied !== undefined) {
      return Promise.reject(
        new ToolCallError(
          "PolicyDenied",
          `Policy denies ${request.namespace}.${denied.target.tool} (${denied.described})${
            request.targets.length > 1 ? `, which this call would run` : ""
          }: change the policy in gateway.json to allow it`,
        ),
      );
    }
    const asked = verdicts.find((v) => v.action === "ask");
    if (asked === undefined) return undefined;
    return this.#hold(request, asked, context);
  }

  #judge(request: PolicyRequest, target: PolicyTarget, configured: readonly Rule[]): Verdict {
    const paths = [`${request.namespace}.${target.tool}`, ...target.aliases];
    for (const rule of [...configured, ...defaultRule(request.namespace, target.annotations)]) {
      if (!paths.some((path) => globMatch(rule.match, path))) continue;
      if (!this.#when(rule, target, request.args)) continue;
      return { target, action: rule.action, described: rule.reason ?? describeRule(rule) };
    }
    return { target, action: "allow", described: "no rule" };
  }

  /** Whether a rule's `when` holds: its annotation is true and its argument conditions hold. */
  #when(rule: Rule, target: PolicyTarget, args: Readonly<Record<string, unknown>>): boolean {
    const when = rule.when;
    if (when === undefined) return true;
    const annotation = typeof when === "string" ? when : when.annotation;
    if (annotation !== undefined && target.annotations?.[annotation] !== true) return false;
    if (typeof when === "string" || when.args === undefined) return true;
    let matcher = this.#matchers.get(when);
    if (matcher === undefined) {
      matcher = compileArgsConditions(when.args, this.#options.root);
      this.#matchers.set(when, matcher);
    }
    return matcher(args);
  }

  async #hold(request: PolicyRequest, asked: Verdict, context: PolicyContext): Promise<void> {
    const { namespace } = request;
    const tool = asked.target.tool;
    const described = asked.described;
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
      namespace,
      tool,
      args: request.args,
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

/** A rule as messages name it: `rule "fs.write_file" when path ~ ROOT/out/**`. */
function describeRule(rule: Rule): string {
  const when = rule.when;
  if (when === undefined) return `rule "${rule.match}"`;
  if (typeof when === "string") return `rule "${rule.match}" when ${when}`;
  const parts = [
    ...(when.annotation !== undefined ? [when.annotation] : []),
    ...Object.entries(when.args ?? {}).map(([path, condition]) =>
      condition.glob !== undefined
        ? `${path} ~ ${condition.glob}`
        : `${path} = ${JSON.stringify(condition.equals)}`
    ),
  ];
  return `rule "${rule.match}" when ${parts.join(" and ")}`;
}

function hasDefaultAction(target: Pick<PolicyTarget, "annotations">): boolean {
  const action = target.annotations?.[DEFAULT_ACTION_ANNOTATION];
  return action === "ask" || action === "deny";
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
 * fails as `PolicyDenied` and the script can still handle it, not as `Timeout`.
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
): ReadonlyArray<Rule> {
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
