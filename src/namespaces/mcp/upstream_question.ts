/**
 * What an upstream MCP server asks of the user while one of its tools runs (an elicitation:
 * a 2025 `elicitation/create` request, or an entry of a 2026 `input_required` result), put as a
 * yes-or-no question the gateway's approval path can hold (`gateway approve RUNID`, the
 * dashboard, an MCP host), and the answer turned back into the `ElicitResult` the server reads.
 * A yes fills each field from its default (and a boolean without one with `true`, the field
 * being the confirmation asked for); a question with a required field that has neither cannot be
 * answered by a yes, so it is declined without holding anyone.
 * @module
 */

/** One question, ready for the approval path. */
export interface UpstreamQuestion {
  /** What the server asks, in its words (with the URL to open, for a URL elicitation). */
  message: string;
  /** What a yes answers: the fields it fills (a URL elicitation: the URL to open). */
  fields: Record<string, unknown>;
}

/** The hook a call carries to hold a question for a person: resolves with their answer. */
export type AskUser = (question: UpstreamQuestion) => Promise<{ allowed: boolean; by: string }>;

/** An `ElicitResult`: what the server gets back. */
export type ElicitAnswer =
  | { action: "accept"; content?: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** How an elicitation's parameters are read: as the server sent them. */
interface ElicitParams {
  mode?: unknown;
  message?: unknown;
  url?: unknown;
  requestedSchema?: unknown;
}

type FieldValue = string | number | boolean | string[];

/**
 * The question in `params` and what a yes answers with; `unanswerable` (a reason) when a yes
 * cannot answer it (a required field with no default, a malformed request).
 */
export function readQuestion(
  params: unknown,
): { question: UpstreamQuestion; yes: ElicitAnswer } | { unanswerable: string } {
  if (typeof params !== "object" || params === null) {
    return { unanswerable: "the request has no parameters" };
  }
  const { mode, message, url, requestedSchema } = params as ElicitParams;
  const text = typeof message === "string" ? message : "(no message)";
  if (mode === "url") {
    if (typeof url !== "string") return { unanswerable: "a URL elicitation without a URL" };
    return {
      question: { message: `${text} (open ${url}, then allow)`, fields: { url } },
      yes: { action: "accept" },
    };
  }
  const schema = typeof requestedSchema === "object" && requestedSchema !== null
    ? requestedSchema as { properties?: unknown; required?: unknown }
    : {};
  const properties = typeof schema.properties === "object" && schema.properties !== null
    ? schema.properties as Record<string, unknown>
    : {};
  const required = new Set(
    Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === "string")
      : [],
  );
  const content: Record<string, FieldValue> = {};
  for (const [field, raw] of Object.entries(properties)) {
    const property = typeof raw === "object" && raw !== null ? raw as Record<string, unknown> : {};
    const value = fieldValue(property);
    if (value !== undefined) {
      content[field] = value;
      continue;
    }
    if (required.has(field)) {
      return {
        unanswerable: `it asks for "${field}"${
          typeof property.type === "string" ? ` (${property.type})` : ""
        }, which has no default: an approval can only say yes or no`,
      };
    }
  }
  return { question: { message: text, fields: content }, yes: { action: "accept", content } };
}

/** The value a yes gives a field: its default when valid, else `true` for a boolean. */
function fieldValue(property: Record<string, unknown>): FieldValue | undefined {
  const value = property.default;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  if (property.type === "boolean") return true;
  return undefined;
}

/**
 * Asks `ask` (when a person can be asked) the question in `params` and gives the server's
 * answer: the yes of {@linkcode readQuestion} when allowed, `decline` when denied, unanswerable
 * or nobody can be asked. `onNote` hears why a question was declined without asking anyone.
 */
export async function answerElicitation(
  params: unknown,
  ask: AskUser | undefined,
  onNote: (note: string) => void,
): Promise<ElicitAnswer> {
  const read = readQuestion(params);
  if ("unanswerable" in read) {
    onNote(`declined a question it cannot answer: ${read.unanswerable}`);
    return { action: "decline" };
  }
  if (ask === undefined) {
    onNote(
      `declined "${read.question.message}": only a call from a run can wait for an answer`,
    );
    return { action: "decline" };
  }
  const decision = await ask(read.question);
  return decision.allowed ? read.yes : { action: "decline" };
}

/** Answers the input requests of one call (a 2026 `input_required`, or a 2025 request). */
export type AnswerInput = (requests: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * The {@linkcode AnswerInput} of a call whose questions go to `ask`: each `elicitation/create`
 * is asked (or declined, see {@linkcode answerElicitation}); any other request (sampling,
 * roots: capabilities the gateway does not offer) fails the call with the reason.
 */
export function inputAnswerer(
  ask: AskUser | undefined,
  onNote: (note: string) => void,
): AnswerInput {
  return async (requests) => {
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      const { method, params } = typeof request === "object" && request !== null
        ? request as { method?: unknown; params?: unknown }
        : {};
      if (method !== "elicitation/create") {
        throw new Error(
          `the server asked for "${String(method)}", which the gateway does not offer ` +
            "(it answers elicitation only)",
        );
      }
      responses[key] = await answerElicitation(params, ask, onNote);
    }
    return responses;
  };
}
