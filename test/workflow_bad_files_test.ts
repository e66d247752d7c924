/**
 * End-to-end proof of a workflow file's refusals: every kind of bad workflow file is refused by
 * `gateway workflow start` (and RPC `workflow.start`) with the file, the YAML line and column and
 * what is wrong, a non-zero exit code and nothing recorded; an unknown template variable names
 * the variable and the step.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError } from "../src/protocol/json_rpc.ts";
import { withHarness } from "./support/gateway_harness.ts";

/** Each bad file, and the line, column and problem its refusal must name. */
const BAD_FILES: Record<string, { text: string; line: number; column: number; problem: RegExp }> = {
  "missing-title": {
    text: "description: A step lacks its title\nsteps:\n  - title: First\n    prompt: one\n" +
      "  - prompt: Second has no title\n",
    line: 5,
    column: 5,
    problem: /step 2: missing "title"/,
  },
  "min-over-max": {
    text: "steps:\n  - title: Loop\n    prompt: go round\n    loop: { min: 3, max: 2 }\n",
    line: 4,
    column: 18,
    problem: /step 1: loop\.min \(3\) is greater than loop\.max \(2\)/,
  },
  "unknown-step-key": {
    text: "steps:\n  - title: One\n    prompt: go\n    repeat: 3\n",
    line: 4,
    column: 5,
    problem: /step 1: unknown key "repeat" \(allowed: title, prompt, loop\)/,
  },
  "unknown-top-key": {
    text: "description: top-level typo\nstep:\n  - title: One\n    prompt: go\n",
    line: 2,
    column: 1,
    problem: /unknown key "step" \(allowed: description, vars, steps; did you mean "steps"\?\)/,
  },
  "unknown-loop-key": {
    text: "steps:\n  - title: One\n    prompt: go\n    loop: { min: 1, maximum: 3 }\n",
    line: 4,
    column: 21,
    problem: /step 1 loop: unknown key "maximum" \(allowed: min, max; did you mean "max"\?\)/,
  },
  "unclosed-bracket": {
    text: "steps:\n  - title: One\n    prompt: go\n    loop: { min: 1, max: 2\n" +
      "  - title: Two\n    prompt: go\n",
    line: 4,
    column: 11,
    problem: /invalid YAML: "\{" is never closed: add "\}"/,
  },
  "unclosed-sequence": {
    text: "steps: [\n  { title: One, prompt: go }\n",
    line: 1,
    column: 8,
    problem: /invalid YAML: "\[" is never closed: add "\]"/,
  },
  "bad-indentation": {
    // The YAML parser notices the deeper indentation of "prompt" at the end of line 2.
    text: "steps:\n  - title: One\n     prompt: go\n",
    line: 2,
    column: 12,
    problem: /invalid YAML: Nested mappings are not allowed in compact mappings/,
  },
  "unclosed-quote": {
    text: 'steps:\n  - title: "One\n    prompt: go\n',
    line: 2,
    column: 12,
    problem: /invalid YAML: the " quote opened here is never closed/,
  },
  "no-steps": {
    text: "description: nothing to do\nsteps: []\n",
    line: 2,
    column: 8,
    problem: /"steps" is empty: a workflow needs at least one step/,
  },
  "loop-not-a-number": {
    text: "steps:\n  - title: One\n    prompt: go\n    loop: { min: two, max: 3 }\n",
    line: 4,
    column: 18,
    problem: /step 1 loop\.min: expected a number, got text \(3 characters\)/,
  },
  "empty": {
    text: "",
    line: 1,
    column: 1,
    problem: /the file is empty: a workflow needs a "steps:" list/,
  },
};

const GOOD = `description: A good workflow with a variable.
vars:
  topic: the default topic
  rounds: 2
steps:
  - title: Think about {{vars.topic}}
    prompt: Spend {{vars.rounds}} rounds on {{vars.topic}}.
`;

const BAD_TEMPLATE = `steps:
  - title: Fine
    prompt: Nothing wrong here.
  - title: Second
    prompt: |
      All good so far.
      Then {{vars.tpyo}} breaks it.
`;

const BAD_NAME = `steps:
  - title: Fine
    prompt: "Step {{stpe}} of {{totalSteps}}"
`;

const BAD_HELPER = `steps:
  - title: One
    prompt: "{{#iff (eq step 1)}}first{{/iff}}"
`;

const UNCLOSED_BLOCK = `steps:
  - title: One
    prompt: "{{#if (eq step 1)}}first"
`;

Deno.test("bad workflow files are refused with file, line, column and the problem", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const files: Record<string, string> = {
    "workflows/good.yaml": GOOD,
    "workflows/bad-template.yaml": BAD_TEMPLATE,
    "workflows/bad-name.yaml": BAD_NAME,
    "workflows/bad-helper.yaml": BAD_HELPER,
    "workflows/unclosed-block.yaml": UNCLOSED_BLOCK,
  };
  for (const [name, bad] of Object.entries(BAD_FILES)) files[`workflows/${name}.yaml`] = bad.text;
  await withHarness({ files }, async (gw) => {
    const client = await gw.client();
    try {
      for (const [name, bad] of Object.entries(BAD_FILES)) {
        await t.step(`"${name}" is refused at line ${bad.line}, column ${bad.column}`, async () => {
          const file = join(gw.root, "workflows", `${name}.yaml`);
          const result = await gw.cli(["workflow", "start", name, "--session", name]);
          assert.notEqual(result.code, 0);
          assert.equal(result.stdout, "");
          const prefix =
            `error[BadFile]: Cannot load workflow "${file}": line ${bad.line}, column ${bad.column}: `;
          assert.ok(
            result.stderr.startsWith(prefix),
            `expected "${prefix}…", got:\n${result.stderr}`,
          );
          assert.match(result.stderr.split("\n")[0]!, bad.problem);

          const error = await client.request("workflow.start", { file: name, session: name })
            .then(() => null, (e: unknown) => e);
          assert.ok(error instanceof RpcError, String(error));
          assert.equal(error.data?.kind, "BadFile");
          assert.deepEqual(error.data?.location, { file, line: bad.line, column: bad.column });

          // Nothing was recorded for the session.
          const status = await gw.cli(["workflow", "status", "--session", name]);
          assert.match(status.stdout, new RegExp(`No workflow was started in session "${name}"`));
        });
      }

      await t.step("a bad file given by path is refused the same way", async () => {
        const dir = join(gw.cwd, "elsewhere");
        await Deno.mkdir(dir);
        await Deno.writeTextFile(join(dir, "flow.yaml"), BAD_FILES["min-over-max"]!.text);
        const result = await gw.cli(["workflow", "start", "elsewhere/flow.yaml"]);
        assert.notEqual(result.code, 0);
        assert.match(
          result.stderr,
          new RegExp(
            `^error\\[BadFile\\]: Cannot load workflow "${
              join(dir, "flow.yaml")
            }": line 4, column 18: `,
          ),
        );
      });

      await t.step(
        "workflow list marks every bad file BROKEN with its line and lists the good one",
        async () => {
          const result = await gw.cli(["workflow", "list"]);
          assert.equal(result.code, 0, result.stderr);
          for (const [name, bad] of Object.entries(BAD_FILES)) {
            assert.match(
              result.stdout,
              new RegExp(`^  ${name}  BROKEN: .*line ${bad.line}, column ${bad.column}: `, "m"),
            );
          }
          assert.match(
            result.stdout,
            /^ {2}good {2}\(1 step\) {2}A good workflow with a variable\./m,
          );
          const json = JSON.parse((await gw.cli(["workflow", "list", "--json"])).stdout) as {
            files: Array<{ name: string; steps: number | null; error: string | null }>;
          };
          const broken = json.files.filter((f) => f.error !== null).map((f) => f.name).sort();
          assert.deepEqual(broken, Object.keys(BAD_FILES).sort());
        },
      );

      await t.step("an unknown template variable names the variable and the step", async () => {
        const result = await gw.cli(["workflow", "start", "bad-template", "--session", "tpl"]);
        assert.notEqual(result.code, 0);
        assert.match(
          result.stderr,
          /^error\[BadTemplate\]: .*step 2 "Second" \(prompt\): unknown variable "vars\.tpyo".*--var tpyo=VALUE.*line 2/,
        );
        const top = await gw.cli(["workflow", "start", "bad-name", "--session", "tpl"]);
        assert.match(
          top.stderr,
          /^error\[BadTemplate\]: .*step 1 "Fine" \(prompt\): unknown variable "stpe"/,
        );
        const helper = await gw.cli(["workflow", "start", "bad-helper", "--session", "tpl"]);
        assert.match(helper.stderr, /^error\[BadTemplate\]: .*step 1 "One" \(prompt\): .*iff/);
        const block = await gw.cli(["workflow", "start", "unclosed-block", "--session", "tpl"]);
        assert.match(block.stderr, /^error\[BadTemplate\]: .*step 1 "One" \(prompt\): /);
        // Refused before anything was recorded; giving the variable makes the same file start.
        const none = await gw.cli(["workflow", "status", "--session", "tpl"]);
        assert.match(none.stdout, /No workflow was started/);
        const fixed = await gw.cli([
          "workflow",
          "start",
          "bad-template",
          "--session",
          "tpl",
          "--var",
          "tpyo=the typo",
        ]);
        assert.equal(fixed.code, 0, fixed.stderr);
        const second = await gw.cli(["workflow", "step", "--session", "tpl"]);
        assert.match(second.stdout, /Then the typo breaks it\./);
      });

      await t.step("bad names and bad variables are refused with what to do", async () => {
        const missing = await gw.cli(["workflow", "start", "no-such-flow"]);
        assert.notEqual(missing.code, 0);
        assert.match(
          missing.stderr,
          /^error\[NotFound\]: Cannot find workflow "no-such-flow": .*available: .*good/,
        );
        const badNumber = await gw.cli(["workflow", "start", "good", "--var", "rounds=many"]);
        assert.notEqual(badNumber.code, 0);
        assert.match(
          badNumber.stderr,
          /^error\[BadArgument\]: Cannot use variable "rounds": "many" is not a number/,
        );
        const unused = await gw.cli(["workflow", "start", "good", "--var", "topik=x"]);
        assert.equal(unused.code, 2, "a bad argument is a usage error");
        assert.match(
          unused.stderr,
          /^error\[BadArgument\]: Cannot use variable "topik": the workflow does not use it \(it takes "rounds", "topic"\)/,
        );
        const badName = await gw.cli(["workflow", "start", "good", "--var", "1x=3"]);
        assert.match(badName.stderr, /^error\[BadArgument\]: Cannot use variable "1x"/);
        const noValue = await gw.cli(["workflow", "start", "good", "--var", "topic"]);
        assert.equal(noValue.code, 2);
        assert.match(noValue.stderr, /^error\[Usage\]: --var takes k=v/);
        const good = await gw.cli([
          "workflow",
          "start",
          "good",
          "--session",
          "ok",
          "--var",
          "rounds=3",
          "--var",
          "topic=caching",
        ]);
        assert.equal(good.code, 0, good.stderr);
        assert.match(good.stdout, /^## Think about caching\n\nSpend 3 rounds on caching\./);
      });
    } finally {
      await client.close();
    }
  });
});
