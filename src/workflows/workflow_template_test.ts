import assert from "node:assert/strict";
import { WorkflowError } from "./workflow_error.ts";
import {
  checkWorkflowTemplate,
  renderWorkflowTemplate,
  type WorkflowTemplateContext,
} from "./workflow_template.ts";

const CONTEXT: WorkflowTemplateContext = {
  step: 2,
  totalSteps: 4,
  loop: 2,
  min: 1,
  max: 3,
  session: "s1",
  vars: { who: "world", n: 3, on: true },
};
const SITE = { step: 2, stepTitle: "Review", field: "prompt" } as const;

function render(source: string, context: WorkflowTemplateContext = CONTEXT): string {
  return renderWorkflowTemplate(source, context, SITE);
}

function refused(source: string, context: WorkflowTemplateContext = CONTEXT): WorkflowError {
  try {
    render(source, context);
  } catch (error) {
    assert.ok(error instanceof WorkflowError, String(error));
    assert.equal(error.code, "BadTemplate");
    return error;
  }
  assert.fail(`expected ${JSON.stringify(source)} to be refused`);
}

Deno.test("renderWorkflowTemplate() fills every context variable and does not escape HTML", () => {
  assert.equal(
    render(
      "{{vars.who}} <b>&</b> '\"' step {{step}}/{{totalSteps}} pass {{loop}} ({{min}}-{{max}}) in {{session}}",
    ),
    "world <b>&</b> '\"' step 2/4 pass 2 (1-3) in s1",
  );
});

Deno.test("renderWorkflowTemplate() supports eq ne lt gt lte gte and or not", () => {
  const cases: [string, string][] = [
    ["{{#if (eq step 2)}}y{{else}}n{{/if}}", "y"],
    ["{{#if (ne step 2)}}y{{else}}n{{/if}}", "n"],
    ["{{#if (lt loop max)}}y{{else}}n{{/if}}", "y"],
    ["{{#if (gt loop max)}}y{{else}}n{{/if}}", "n"],
    ["{{#if (lte loop 2)}}y{{else}}n{{/if}}", "y"],
    ["{{#if (gte loop min)}}y{{else}}n{{/if}}", "y"],
    ['{{#if (and vars.on (gt vars.n 2) (eq session "s1"))}}y{{else}}n{{/if}}', "y"],
    ["{{#if (and vars.on false)}}y{{else}}n{{/if}}", "n"],
    ['{{#if (or false (eq vars.who "world"))}}y{{else}}n{{/if}}', "y"],
    ["{{#if (not vars.on)}}y{{else}}n{{/if}}", "n"],
    ["{{#unless (eq step totalSteps)}}more{{/unless}}", "more"],
    ["{{#if (eq step 1)}}one{{else if (eq step 2)}}two{{else}}other{{/if}}", "two"],
    ["{{#each vars}}{{@key}}={{this}};{{/each}}", "who=world;n=3;on=true;"],
    ["{{#each vars as |v k|}}{{k}}{{/each}}", "whonon"],
    ['{{lookup vars "who"}}', "world"],
  ];
  for (const [source, expected] of cases) assert.equal(render(source), expected, source);
});

Deno.test("renderWorkflowTemplate() gives null loop, min and max in a step without a loop", () => {
  const plain = { ...CONTEXT, loop: null, min: null, max: null };
  assert.equal(render("[{{loop}}]{{#if loop}}looping{{else}}once{{/if}}", plain), "[]once");
});

Deno.test("renderWorkflowTemplate() refuses an unknown variable, naming it and the step", () => {
  assert.match(
    refused("Hello {{stpe}}").message,
    /^Cannot render step 2 "Review" \(prompt\): unknown variable "stpe" .*\(prompt line 1, column 9\)$/,
  );
  assert.match(
    refused("{{vars.missing}}").message,
    /unknown variable "vars\.missing".*--var missing=VALUE/,
  );
  // Strict mode alone misses these two: inside #if and as a helper argument.
  assert.match(refused("{{#if vars.mode}}x{{/if}}").message, /unknown variable "vars\.mode"/);
  assert.match(
    refused('{{#if (eq vars.mode "fast")}}x{{/if}}').message,
    /unknown variable "vars\.mode"/,
  );
  assert.match(refused("{{#if x}}{{else}}{{nope}}{{/if}}").message, /unknown variable "x"/);
  assert.match(
    refused("{{vars.who.length}}").message,
    /"vars\.who\.length": vars hold plain values/,
  );
  assert.match(refused("{{step.x}}").message, /"step\.x": "step" is a plain value/);
  assert.match(refused("{{@root.vars.nope}}").message, /unknown variable "vars\.nope"/);
  assert.match(refused("line 1\n\n  {{bad}}").message, /prompt line 3, column 5/);
});

Deno.test("renderWorkflowTemplate() refuses unknown helpers, partials and parse errors", () => {
  assert.match(refused("{{shout vars.who}}").message, /unknown helper "shout"/);
  assert.match(refused("{{#if (shout 1)}}x{{/if}}").message, /unknown helper "shout"/);
  assert.match(refused("{{> header}}").message, /partials are not supported/);
  assert.match(
    refused("line1\n{{#if step}}\nunclosed").message,
    /^Cannot render step 2 "Review" \(prompt\): Parse error on line 3: unexpected end of template \(a block is not closed\)$/,
  );
  assert.match(refused("{{#if step}").message, /Parse error on line 1/);
  assert.match(refused("{{#if step}}x{{/each}}").message, /if doesn't match each/);
});

Deno.test("checkWorkflowTemplate() checks names against the given vars without rendering", () => {
  const site = { step: 4, stepTitle: "Ship", field: "title", varNames: ["who"] } as const;
  checkWorkflowTemplate("Ship {{vars.who}} at {{step}}", site);
  assert.throws(
    () => checkWorkflowTemplate("Ship {{vars.target}}", site),
    (error: unknown) =>
      error instanceof WorkflowError &&
      /^Cannot render step 4 "Ship" \(title\): unknown variable "vars\.target" \(vars known: who;/
        .test(
          error.message,
        ),
  );
});
