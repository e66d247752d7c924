import assert from "node:assert/strict";
import { join } from "node:path";
import { WorkflowError } from "./workflow_error.ts";
import { hashWorkflowText, parseWorkflowFile, readWorkflowFile } from "./workflow_file.ts";

function badFile(text: string): WorkflowError {
  try {
    parseWorkflowFile(text, "flows/x.yaml");
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    assert.equal(error.code, "BadFile");
    return error;
  }
  assert.fail("expected the file to be refused");
}

Deno.test("parseWorkflowFile() reads description, vars and steps with loops", () => {
  const workflow = parseWorkflowFile(
    `description: Ship it
vars:
  who: world
  rounds: 2
  strict: true
steps:
  - title: Plan
    prompt: |
      Plan for {{vars.who}}.
  - title: Build
    prompt: Build it.
    loop: { min: 0, max: 3 }
`,
    "ship.yaml",
  );
  assert.deepEqual(workflow, {
    description: "Ship it",
    vars: { who: "world", rounds: 2, strict: true },
    steps: [
      { title: "Plan", prompt: "Plan for {{vars.who}}.\n", loop: null },
      { title: "Build", prompt: "Build it.", loop: { min: 0, max: 3 } },
    ],
  });
  assert.deepEqual(parseWorkflowFile("steps:\n  - {title: A, prompt: b}\n", "a.yaml"), {
    description: null,
    vars: {},
    steps: [{ title: "A", prompt: "b", loop: null }],
  });
});

Deno.test("parseWorkflowFile() refuses a step without a title, naming the step and its line", () => {
  const error = badFile("steps:\n  - title: A\n    prompt: p\n  - prompt: only prompt\n");
  assert.equal(
    error.message,
    'Cannot load workflow "flows/x.yaml": line 4, column 5: step 2: missing "title"',
  );
  assert.deepEqual(error.location, { file: "flows/x.yaml", line: 4, column: 5 });
});

Deno.test("parseWorkflowFile() refuses a loop whose min is greater than its max", () => {
  const error = badFile(
    "steps:\n  - title: A\n    prompt: p\n    loop:\n      min: 5\n      max: 2\n",
  );
  assert.equal(
    error.message,
    'Cannot load workflow "flows/x.yaml": line 5, column 12: step 1: loop.min (5) is greater than loop.max (2)',
  );
});

Deno.test("parseWorkflowFile() refuses unknown keys at every level, pointing at the key", () => {
  assert.equal(
    badFile("name: x\nsteps:\n  - title: A\n    prompt: p\n").message,
    'Cannot load workflow "flows/x.yaml": line 1, column 1: unknown key "name" (allowed: description, vars, steps)',
  );
  assert.equal(
    badFile("steps:\n  - title: A\n    prompt: p\n    titel: x\n").message,
    'Cannot load workflow "flows/x.yaml": line 4, column 5: step 1: unknown key "titel" (allowed: title, prompt, loop)',
  );
  assert.equal(
    badFile("steps:\n  - title: A\n    prompt: p\n    loop: {min: 1, max: 2, every: 3}\n").message,
    'Cannot load workflow "flows/x.yaml": line 4, column 28: step 1 loop: unknown key "every" (allowed: min, max)',
  );
});

Deno.test("parseWorkflowFile() points an unclosed bracket's error at the bracket itself", () => {
  const error = badFile("steps: [\n  {title: A, prompt: p}\n");
  assert.match(
    error.message,
    /^Cannot load workflow "flows\/x\.yaml": line 1, column 8: invalid YAML: "\[" is never closed: add "\]" \(the parser stopped at line 3, column 1: .*end with a \]\)$/,
  );
  assert.deepEqual(error.location, { file: "flows/x.yaml", line: 1, column: 8 });
  assert.match(
    badFile("steps:\n  - title: [A\n    prompt: p\n").message,
    /line 2, column 12: invalid YAML: "\[" is never closed/,
  );
  assert.match(
    badFile("steps:\n  - title: A\n    prompt: p\n    loop: { min: 1, max: 2\n  - title: B\n")
      .message,
    /line 4, column 11: invalid YAML: "\{" is never closed: add "\}"/,
  );
  assert.match(
    badFile('steps:\n  - title: "A\n    prompt: p\n').message,
    /line 2, column 12: invalid YAML: the " quote opened here is never closed \(the parser stopped at line 4, column 1: Missing closing "quote\)/,
  );
  assert.match(
    badFile('steps:\n  - title: "A \\" B"\n    prompt: \'p\n').message,
    /line 3, column 13: invalid YAML: the ' quote opened here is never closed/,
  );
  // Closed brackets elsewhere do not take the blame for another error.
  assert.match(
    badFile("steps:\n  - title: A\n    loop: {min: 1, max: 2}\n    prompt: [x\n  - title: B\n")
      .message,
    /line 4, column 13: invalid YAML: "\[" is never closed/,
  );
});

Deno.test("parseWorkflowFile() refuses other bad YAML: tabs, duplicate keys", () => {
  assert.match(badFile("steps:\n\t- title: A\n").message, /line 2, column 1: invalid YAML: Tabs/);
  assert.match(
    badFile("steps:\n  - title: A\n    title: B\n    prompt: p\n").message,
    /line 3, column 5: invalid YAML: Map keys must be unique/,
  );
});

Deno.test("parseWorkflowFile() names a misspelt key first and guesses the key it stands for", () => {
  assert.equal(
    badFile("step:\n  - title: A\n    prompt: p\n").message,
    'Cannot load workflow "flows/x.yaml": line 1, column 1: unknown key "step" (allowed: description, vars, steps; did you mean "steps"?)\n' +
      '  line 1, column 1: missing "steps"',
  );
  assert.match(
    badFile("steps:\n  - title: A\n    promt: p\n").message,
    /^Cannot load workflow "flows\/x\.yaml": line 3, column 5: step 1: unknown key "promt" \(allowed: title, prompt, loop; did you mean "prompt"\?\)\n {2}line 2, column 5: step 1: missing "prompt"$/,
  );
});

Deno.test("parseWorkflowFile() refuses empty or missing steps", () => {
  assert.equal(
    badFile("steps: []\n").message,
    'Cannot load workflow "flows/x.yaml": line 1, column 8: "steps" is empty: a workflow needs at least one step',
  );
  assert.match(badFile("description: nothing\n").message, /line 1, column 1: missing "steps"/);
  assert.match(
    badFile("").message,
    /line 1, column 1: the file is empty: a workflow needs a "steps:" list/,
  );
  assert.match(badFile("# only a comment\n").message, /the file is empty/);
  assert.match(
    badFile("just text").message,
    /expected a mapping with "steps", got text \(9 characters\)/,
  );
  assert.match(badFile("steps:\n  title: A\n").message, /steps: expected a list, got a mapping/);
});

Deno.test("parseWorkflowFile() refuses wrong types and empty texts with the value's position", () => {
  assert.equal(
    badFile("steps:\n  - title: 5\n    prompt: p\n").message,
    'Cannot load workflow "flows/x.yaml": line 2, column 12: step 1 title: expected text, got number 5',
  );
  assert.match(
    badFile("steps:\n  - title: A\n    prompt: '  '\n").message,
    /line 3, column 13: step 1 prompt: must not be empty/,
  );
  assert.match(
    badFile("steps:\n  - title: A\n    prompt: p\n    loop: {min: 1.5, max: 2}\n").message,
    /line 4, column 17: step 1 loop\.min: expected a whole number, got number 1\.5/,
  );
  assert.match(
    badFile("steps:\n  - title: A\n    prompt: p\n    loop: {min: 1}\n").message,
    /step 1 loop: missing "max"/,
  );
  assert.match(
    badFile("vars:\n  bad-name: 1\nsteps:\n  - title: A\n    prompt: p\n").message,
    /line 2, column \d+: vars bad-name: invalid variable name/,
  );
  assert.match(
    badFile("vars:\n  list: [1]\nsteps:\n  - title: A\n    prompt: p\n").message,
    /line 2, column 9: vars list:/,
  );
});

Deno.test("parseWorkflowFile() lists every problem, the first one's position in the error", () => {
  const error = badFile(
    "steps:\n  - title: A\n  - title: B\n    prompt: p\n    loop: {min: 3, max: 1}\n",
  );
  const lines = error.message.split("\n");
  assert.equal(lines.length, 2);
  assert.match(lines[0] ?? "", /line 2, column 5: step 1: missing "prompt"/);
  assert.match(lines[1] ?? "", /^ {2}line 5, column 17: step 2: loop\.min \(3\) is greater/);
  assert.deepEqual(error.location, { file: "flows/x.yaml", line: 2, column: 5 });
});

Deno.test("readWorkflowFile() returns text, hash and definition, and NotFound for a missing file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "a.yaml");
    const text = "steps:\n  - title: A\n    prompt: p\n";
    await Deno.writeTextFile(path, text);
    const loaded = await readWorkflowFile(path);
    assert.equal(loaded.path, path);
    assert.equal(loaded.text, text);
    assert.equal(loaded.hash, hashWorkflowText(text));
    assert.match(loaded.hash, /^[0-9a-f]{64}$/);
    assert.notEqual(hashWorkflowText(`${text} `), loaded.hash);
    await assert.rejects(readWorkflowFile(join(dir, "missing.yaml")), (error: unknown) => {
      assert.ok(error instanceof WorkflowError);
      assert.equal(error.code, "NotFound");
      assert.match(error.message, /Cannot read workflow ".*missing\.yaml"/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
