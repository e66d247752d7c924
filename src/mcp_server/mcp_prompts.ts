/**
 * Prompts and completions of the gateway's MCP server: each upstream's prompts as
 * `<namespace>__<prompt>`, each bundled workflow as `workflow__<name>` (a message telling the
 * agent to step it with the workflow tools), and completions for prompt arguments and resource
 * template variables (namespaces, run ids, sessions; upstream ones forwarded).
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { type HostRoundParams, inputRequiredOf } from "./host_round.ts";
import type { GatewayCall } from "./gateway_call.ts";
import { namespaceSummaries, splitNamespacedUri, UPSTREAM_PREFIX } from "./mcp_resources.ts";

/** A prompt as `prompts/list` answers it. */
export interface ListedPrompt {
  name: string;
  title?: string;
  description: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

interface WorkflowList {
  files: Array<{ name: string; description: string | null; error: string | null }>;
  sessions: Array<{ session: string }>;
}

const WORKFLOW_PREFIX = "workflow__";
const SEPARATOR = "__";

/** A prompt name nobody serves: a JSON-RPC -32602 error listing what exists. */
export class UnknownPromptError extends Error {
  constructor(name: string, known: string[]) {
    super(`Unknown prompt "${name}" (prompts: ${known.join(", ") || "none"})`);
    this.name = "UnknownPromptError";
  }
}

async function upstreamPrompts(call: GatewayCall): Promise<ListedPrompt[]> {
  const prompts: ListedPrompt[] = [];
  for (const ns of await namespaceSummaries(call)) {
    if (ns.kind !== "mcp" || ns.status !== "ready" || !ns.prompts?.length) continue;
    const answer = await call("upstream.request", { namespace: ns.name, method: "prompts/list" });
    for (const p of (answer as { value: ListedPrompt[] }).value) {
      prompts.push({
        ...p,
        name: `${ns.identifier}${SEPARATOR}${p.name}`,
        description: p.description || `Prompt ${p.name} of namespace ${ns.name}`,
      });
    }
  }
  return prompts;
}

/** Every prompt: upstream ones, then one per workflow file. */
export async function listPrompts(call: GatewayCall): Promise<ListedPrompt[]> {
  const prompts = await upstreamPrompts(call);
  const workflows = await call("workflow.list", {}) as WorkflowList;
  for (const file of workflows.files) {
    if (file.error) continue;
    prompts.push({
      name: `${WORKFLOW_PREFIX}${file.name}`,
      title: `Workflow ${file.name}`,
      description: file.description ?? `Follow the ${file.name} workflow step by step`,
      arguments: [{
        name: "session",
        description: "Session name (several agents can each run their own)",
        required: false,
      }],
    });
  }
  return prompts;
}

async function resolveUpstream(
  call: GatewayCall,
  name: string,
): Promise<{ namespace: string; prompt: string } | null> {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return null;
  const identifier = name.slice(0, at);
  const ns = (await namespaceSummaries(call)).find((n) => n.identifier === identifier);
  return ns ? { namespace: ns.name, prompt: name.slice(at + SEPARATOR.length) } : null;
}

/**
 * `prompts/get`. `host` (a surface that passes input) goes with an upstream's prompt, whose
 * input-required answer then comes back as it is.
 */
export async function getPrompt(
  call: GatewayCall,
  name: string,
  args: Record<string, string>,
  host?: HostRoundParams,
): Promise<Record<string, unknown> | InputRequiredResult> {
  if (name.startsWith(WORKFLOW_PREFIX)) {
    const workflow = name.slice(WORKFLOW_PREFIX.length);
    const workflows = await call("workflow.list", {}) as WorkflowList;
    const file = workflows.files.find((f) => f.name === workflow && !f.error);
    if (!file) throw new UnknownPromptError(name, (await listPrompts(call)).map((p) => p.name));
    const session = args.session ? `, "session": ${JSON.stringify(args.session)}` : "";
    return {
      description: file.description ?? `Workflow ${workflow}`,
      messages: [{
        role: "user",
        content: {
          type: "text",
          text: `Follow the "${workflow}" workflow. Call the tool workflow_start with ` +
            `{"file": ${JSON.stringify(workflow)}${session}}, do the step it answers, then call ` +
            `workflow_step${session ? ` with {${session.slice(2)}}` : ""} after each step until ` +
            `it says the workflow is done. workflow_status shows where you are.`,
        },
      }],
    };
  }
  const upstream = await resolveUpstream(call, name);
  if (!upstream) throw new UnknownPromptError(name, (await listPrompts(call)).map((p) => p.name));
  const answer = await call("upstream.request", {
    namespace: upstream.namespace,
    method: "prompts/get",
    params: { name: upstream.prompt, arguments: args },
    ...(host === undefined ? {} : { host }),
  }) as { value: Record<string, unknown> };
  return inputRequiredOf(answer.value) ?? answer.value;
}

/** A `completion/complete` reference. */
export type CompletionRef = { type: "ref/prompt"; name: string } | {
  type: "ref/resource";
  uri: string;
};

function matching(values: string[], prefix: string): { values: string[]; total: number } {
  const found = values.filter((v) => v.toLowerCase().startsWith(prefix.toLowerCase()));
  return { values: found.slice(0, 100), total: found.length };
}

/**
 * `completion/complete`. A reference the gateway does not know answers no values: completion is
 * a hint, and a client typing an unknown prompt's argument is not an error worth a failure.
 */
export async function complete(
  call: GatewayCall,
  ref: CompletionRef,
  argument: { name: string; value: string },
  context: Record<string, string>,
): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
  if (ref.type === "ref/resource") {
    if (ref.uri === "gateway://types/{namespace}" && argument.name === "namespace") {
      return matching((await namespaceSummaries(call)).map((n) => n.name), argument.value);
    }
    if (ref.uri.startsWith("gateway://runs/") && argument.name === "runId") {
      const runs = await call("history.list", { limit: 50 }) as { runs: Array<{ runId: string }> };
      return matching(runs.runs.map((r) => r.runId), argument.value);
    }
    const upstream = ref.uri.startsWith(UPSTREAM_PREFIX) ? splitNamespacedUri(ref.uri) : null;
    if (upstream) {
      return await forwardCompletion(call, upstream.namespace, {
        ref: { type: "ref/resource", uri: upstream.uri },
        argument,
        ...(Object.keys(context).length ? { context: { arguments: context } } : {}),
      });
    }
    return { values: [] };
  }
  if (ref.name.startsWith(WORKFLOW_PREFIX) && argument.name === "session") {
    const workflows = await call("workflow.list", {}) as WorkflowList;
    return matching(workflows.sessions.map((s) => s.session), argument.value);
  }
  const upstream = await resolveUpstream(call, ref.name);
  if (!upstream) return { values: [] };
  return await forwardCompletion(call, upstream.namespace, {
    ref: { type: "ref/prompt", name: upstream.prompt },
    argument,
    ...(Object.keys(context).length ? { context: { arguments: context } } : {}),
  });
}

async function forwardCompletion(
  call: GatewayCall,
  namespace: string,
  params: Record<string, unknown>,
): Promise<{ values: string[]; total?: number; hasMore?: boolean }> {
  const answer = await call("upstream.request", {
    namespace,
    method: "completion/complete",
    params,
  }) as { value: { completion: { values: string[]; total?: number; hasMore?: boolean } } };
  return answer.value.completion;
}
