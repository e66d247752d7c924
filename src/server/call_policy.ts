/**
 * Policy rules (SPEC §13) applied to each call before anything is sent: first match wins;
 * `deny` fails the call, `ask` holds it in {@linkcode Approvals} until someone answers.
 * @module
 */

import type { GatewayConfig } from "../config/gateway_config.ts";
import { ToolCallError } from "../namespaces/namespace.ts";
import type { ApprovalDecision, Approvals } from "./approvals.ts";

/** What a {@linkcode CallPolicy} needs. */
export interface CallPolicyOptions {
  /** The rule list, read at each call so a config reload takes effect at once. */
  rules: () => GatewayConfig["policy"];
  approvals: Approvals;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/** Decides each call by the first matching rule; default allow. */
export class CallPolicy {
  readonly #options: CallPolicyOptions;

  constructor(options: CallPolicyOptions) {
    this.#options = options;
  }

  /**
   * Applies the first matching policy rule (SPEC §13): `deny` fails the call before anything is
   * sent; `ask` holds it until someone answers or the run ends (denied). Only a run can wait
   * for an answer; a direct call under `ask` is denied with the reason.
   */
  async check(
    namespace: string,
    tool: string,
    args: unknown,
    context: {
      annotations: Record<string, unknown> | undefined;
      runId: string | undefined;
      signal: AbortSignal;
      onApproval: ((decision: ApprovalDecision) => void) | undefined;
      /**
       * Other spellings of the same tool (`everything.get_env` for `everything.get-env`): a
       * rule written with the identifier or the original name matches (SPEC §14).
       */
      aliases?: readonly string[];
    },
  ): Promise<void> {
    const paths = [`${namespace}.${tool}`, ...context.aliases ?? []];
    for (const rule of this.#options.rules()) {
      if (!paths.some((path) => globMatch(rule.match, path))) continue;
      if (rule.when && context.annotations?.[rule.when] !== true) continue;
      const described = `rule "${rule.match}"${rule.when ? ` when ${rule.when}` : ""}`;
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
      const decision = await this.#options.approvals.request({
        runId: context.runId,
        namespace: namespace,
        tool,
        args,
        rule: described,
        signal: context.signal,
      });
      context.onApproval?.(decision);
      if (decision.allowed) return;
      throw new ToolCallError(
        "PolicyDenied",
        decision.by === "deadline"
          ? `${namespace}.${tool} needed approval (${described}) and got none before the run ended: denied`
          : `${namespace}.${tool} was denied by ${decision.by} (${described})`,
      );
    }
  }
}

/** Matches `ns.tool` against a glob where `*` is any run of characters. */
export function globMatch(pattern: string, text: string): boolean {
  const regex = new RegExp(
    `^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`,
  );
  return regex.test(text);
}
