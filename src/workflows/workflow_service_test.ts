import assert from "node:assert/strict";
import { join } from "node:path";
import { type GatewayDatabase, openGatewayDatabase } from "../store/gateway_database.ts";
import { WorkflowError } from "./workflow_error.ts";
import { defaultSessionName } from "./default_session_name.ts";
import { WorkflowService } from "./workflow_service.ts";

const REVIEW = `description: Review a change
vars:
  focus: correctness
  rounds: 2
steps:
  - title: Understand
    prompt: Read the diff with {{vars.focus}} in mind. Step {{step}} of {{totalSteps}}.
  - title: Round {{loop}}
    loop: { min: 2, max: 3 }
    prompt: |
      {{#if (eq loop 1)}}First round.{{else}}Round {{loop}} of at most {{max}} (min {{min}}).{{/if}}
  - title: Verdict
    prompt: Write the verdict for session {{session}}.
`;

const SIMPLE = `steps:
  - title: One
    prompt: first
  - title: Two
    prompt: second
`;

interface Fixture {
  root: string;
  cwd: string;
  dbPath: string;
  db: GatewayDatabase;
  service: WorkflowService;
  clock: { now: number };
}

async function withService(fn: (f: Fixture) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  const cwd = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "workflows"));
  await Deno.writeTextFile(join(root, "workflows", "review.yaml"), REVIEW);
  await Deno.writeTextFile(join(root, "workflows", "simple.yml"), SIMPLE);
  const dbPath = join(root, "data", "gateway.db");
  const clock = { now: 1_700_000_000_000 };
  const db = openGatewayDatabase(dbPath);
  const fixture: Fixture = {
    root,
    cwd,
    dbPath,
    db,
    clock,
    service: new WorkflowService({ database: db, root, now: () => clock.now++ }),
  };
  try {
    await fn(fixture);
  } finally {
    fixture.db.close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: WorkflowError["code"],
  message: RegExp,
): Promise<WorkflowError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WorkflowError, `expected a WorkflowError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return error;
  }
  assert.fail("expected a rejection");
}

Deno.test("WorkflowService runs a workflow from start to complete, loop included", async () => {
  await withService(async ({ service, cwd, root }) => {
    const session = defaultSessionName(cwd);
    const started = await service.start({
      file: "review",
      session,
      cwd,
      vars: { focus: "security" },
    });
    assert.equal(started.status, "running");
    assert.equal(started.workflow?.file, join(root, "workflows", "review.yaml"));
    assert.equal(started.workflow?.description, "Review a change");
    assert.deepEqual(started.step, {
      number: 1,
      total: 3,
      title: "Understand",
      prompt: "Read the diff with security in mind. Step 1 of 3.",
      loop: null,
    });
    assert.deepEqual(started.next.map((n) => n.command), ["gateway workflow step"]);
    assert.deepEqual(started.events.map((e) => e.kind), ["start"]);

    const round1 = await service.step({ session, cwd });
    assert.equal(round1.step?.title, "Round 1");
    assert.equal(round1.step?.prompt, "First round.");
    assert.deepEqual(round1.step?.loop, {
      pass: 1,
      min: 2,
      max: 3,
      canEnd: false,
      passesRemaining: 1,
      lastPass: false,
    });
    assert.deepEqual(round1.next.map((n) => n.command), ["gateway workflow step"]);

    const round2 = await service.step({ session, cwd });
    assert.equal(round2.step?.prompt, "Round 2 of at most 3 (min 2).");
    assert.deepEqual(round2.events.map((e) => [e.kind, e.step, e.pass]), [["loop", 2, 2]]);
    assert.deepEqual(round2.next.map((n) => n.command), [
      "gateway workflow step",
      'gateway workflow step --end-loop "reason"',
    ]);

    const verdict = await service.step({ session, cwd, endLoop: "nothing new to find" });
    assert.equal(verdict.step?.title, "Verdict");
    assert.equal(verdict.step?.prompt, `Write the verdict for session ${session}.`);
    assert.deepEqual(verdict.events.map((e) => [e.kind, e.step, e.pass, e.reason]), [
      ["end-loop", 2, 2, "nothing new to find"],
      ["step", 3, null, null],
    ]);

    const done = await service.step({ session, cwd });
    assert.equal(done.status, "complete");
    assert.equal(done.step, null);
    assert.match(done.message ?? "", /complete: all 3 steps done/);
    assert.deepEqual(done.events.map((e) => e.kind), ["complete"]);

    await rejectsWith(service.step({ session, cwd }), "Refused", /is complete: start it again/);
    const log = await service.log({ session });
    assert.equal(log.status, "complete");
    assert.deepEqual(log.events.map((e) => e.kind), [
      "start",
      "step",
      "loop",
      "end-loop",
      "step",
      "complete",
    ]);
    assert.ok(log.events.every((e, i, all) => i === 0 || e.at >= (all[i - 1]?.at ?? 0)));
    assert.equal(log.events[0]?.time, new Date(log.events[0]?.at ?? 0).toISOString());
  });
});

Deno.test("WorkflowService.step() refuses --end-loop before min, saying how many passes remain", async () => {
  await withService(async ({ service, cwd }) => {
    const session = "s";
    await service.start({ file: "review", session, cwd });
    await rejectsWith(
      service.step({ session, cwd, endLoop: "too early" }),
      "Refused",
      /Cannot end loop: step 1 "Understand" is not a loop step/,
    );
    await service.step({ session, cwd });
    await rejectsWith(
      service.step({ session, cwd, endLoop: "bored" }),
      "Refused",
      /Cannot end loop of step 2 "Round 1" at pass 1: 1 more pass required before --end-loop \(min 2\)/,
    );
    await rejectsWith(
      service.step({ session, cwd, endLoop: "  " }),
      "BadArgument",
      /reason is required/,
    );
    // The refusals changed nothing: the session is still at pass 1 of step 2.
    const status = await service.status({ session, cwd });
    assert.deepEqual([status.step?.number, status.step?.loop?.pass], [2, 1]);
    assert.deepEqual((await service.log({ session })).events.map((e) => e.kind), ["start", "step"]);
  });
});

Deno.test("WorkflowService.step() ends a loop by itself after its max pass", async () => {
  await withService(async ({ service, cwd }) => {
    const session = "s";
    await service.start({ file: "review", session, cwd });
    await service.step({ session, cwd });
    await service.step({ session, cwd });
    const last = await service.step({ session, cwd });
    assert.equal(last.step?.loop?.pass, 3);
    assert.equal(last.step?.loop?.lastPass, true);
    assert.match(last.next[0]?.description ?? "", /last \(max 3\), the loop then ends by itself/);
    const moved = await service.step({ session, cwd });
    assert.equal(moved.step?.title, "Verdict");
    assert.deepEqual(moved.events.map((e) => [e.kind, e.reason]), [
      ["end-loop", "reached max of 3 passes"],
      ["step", null],
    ]);
  });
});

Deno.test("WorkflowService keeps two sessions apart when they are stepped in turn", async () => {
  await withService(async ({ service, cwd }) => {
    await service.start({ file: "review", session: "a", cwd });
    await service.start({ file: "simple", session: "b", cwd });
    const a2 = await service.step({ session: "a", cwd });
    const b2 = await service.step({ session: "b", cwd });
    const a3 = await service.step({ session: "a", cwd });
    assert.deepEqual([a2.step?.title, a3.step?.title, a3.step?.loop?.pass], [
      "Round 1",
      "Round 2",
      2,
    ]);
    assert.equal(b2.step?.title, "Two");
    assert.deepEqual(b2.next.map((n) => n.command), ["gateway workflow step --session b"]);
    const bDone = await service.step({ session: "b", cwd });
    assert.equal(bDone.status, "complete");
    assert.equal((await service.status({ session: "a", cwd })).step?.loop?.pass, 2);
    const list = await service.list();
    assert.deepEqual(list.sessions.map((s) => [s.session, s.name, s.step, s.pass]), [
      ["a", "review", 2, 2],
    ]);
    assert.deepEqual((await service.log({ session: "b" })).events.map((e) => e.kind), [
      "start",
      "step",
      "complete",
    ]);
  });
});

Deno.test("WorkflowService picks up a running session after the database is reopened", async () => {
  await withService(async (fixture) => {
    const { cwd, root, dbPath, clock } = fixture;
    await fixture.service.start({
      file: "review",
      session: "restart",
      cwd,
      vars: { focus: "speed" },
    });
    await fixture.service.step({ session: "restart", cwd });
    fixture.db.close();
    // A new process: a new connection and a new service over the same file.
    fixture.db = openGatewayDatabase(dbPath);
    const service = new WorkflowService({ database: fixture.db, root, now: () => clock.now++ });
    const status = await service.status({ session: "restart", cwd });
    assert.deepEqual([status.status, status.step?.number, status.step?.loop?.pass], [
      "running",
      2,
      1,
    ]);
    assert.deepEqual(status.events, []);
    const next = await service.step({ session: "restart", cwd });
    assert.equal(next.step?.loop?.pass, 2);
    await service.step({ session: "restart", cwd, endLoop: "done" });
    const reset = await service.reset({ session: "restart", cwd });
    // The vars given at start survive the restart and the reset.
    assert.equal(reset.step?.prompt, "Read the diff with speed in mind. Step 1 of 3.");
    assert.deepEqual((await service.log({ session: "restart" })).events.map((e) => e.kind), [
      "start",
      "step",
      "loop",
      "end-loop",
      "step",
      "reset",
    ]);
  });
});

Deno.test("WorkflowService detects a workflow file changed under a running session", async () => {
  await withService(async ({ service, cwd, root }) => {
    const file = join(cwd, "mine.yaml");
    await Deno.writeTextFile(file, SIMPLE);
    await service.start({ file: "mine.yaml", session: "s", cwd });
    await Deno.writeTextFile(file, SIMPLE.replace("second", "changed second"));
    const error = await rejectsWith(
      service.step({ session: "s", cwd }),
      "FileChanged",
      /Cannot step session "s": workflow file ".*mine\.yaml" changed since the session started: run gateway workflow reset --session s/,
    );
    assert.match(error.message, /abort --reason/);
    const status = await service.status({ session: "s", cwd });
    assert.equal(status.fileChanged, true);
    assert.equal(status.step?.title, "One", "status still shows the version the session follows");
    assert.match(status.warnings[0] ?? "", /changed since this session started/);
    assert.equal((await service.list({ root })).sessions[0]?.fileChanged, true);
    const reset = await service.reset({ session: "s", cwd });
    assert.equal(reset.fileChanged, false);
    const two = await service.step({ session: "s", cwd });
    assert.equal(two.step?.prompt, "changed second");
    await Deno.remove(file);
    await rejectsWith(service.step({ session: "s", cwd }), "FileChanged", /was deleted since/);
    const aborted = await service.abort({ session: "s", cwd, reason: "file gone" });
    assert.equal(aborted.status, "aborted");
    assert.match(aborted.message ?? "", /aborted at step 2 of 2: file gone/);
  });
});

Deno.test("WorkflowService.abort() records the reason and ends the session", async () => {
  await withService(async ({ service, cwd }) => {
    await service.start({ file: "simple", session: "s", cwd });
    await rejectsWith(service.abort({ session: "s", cwd, reason: "" }), "BadArgument", /reason/);
    const aborted = await service.abort({ session: "s", cwd, reason: "wrong approach" });
    assert.deepEqual(aborted.events.map((e) => [e.kind, e.step, e.reason]), [
      ["abort", 1, "wrong approach"],
    ]);
    await rejectsWith(service.step({ session: "s", cwd }), "Refused", /was aborted/);
    await rejectsWith(
      service.abort({ session: "s", cwd, reason: "again" }),
      "Refused",
      /was aborted/,
    );
    assert.deepEqual((await service.list()).sessions, []);
    // A finished session can start a new workflow; the log then shows the new run only.
    const again = await service.start({ file: "review", session: "s", cwd });
    assert.equal(again.status, "running");
    assert.deepEqual((await service.log({ session: "s" })).events.map((e) => e.kind), ["start"]);
  });
});

Deno.test("WorkflowService.start() refuses a session whose workflow still runs", async () => {
  await withService(async ({ service, cwd }) => {
    await service.start({ file: "simple", session: "busy", cwd });
    await rejectsWith(
      service.start({ file: "review", session: "busy", cwd }),
      "Refused",
      /workflow "simple" is still running there \(step 1\): abort it first with gateway workflow abort --reason "…" --session busy/,
    );
  });
});

Deno.test("WorkflowService.start() resolves bundled names with or without extension, and paths", async () => {
  await withService(async ({ service, cwd, root }) => {
    assert.equal(
      (await service.start({ file: "review.yaml", session: "a", cwd })).workflow?.name,
      "review",
    );
    assert.equal(
      (await service.start({ file: "simple", session: "b", cwd })).workflow?.name,
      "simple",
    );
    await Deno.writeTextFile(join(cwd, "local.yaml"), SIMPLE);
    const local = await service.start({ file: "./local.yaml", session: "c", cwd });
    assert.equal(local.workflow?.file, join(cwd, "local.yaml"));
    const absolute = await service.start({
      file: join(root, "workflows", "simple.yml"),
      session: "d",
      cwd,
    });
    assert.equal(absolute.workflow?.name, "simple");
    await rejectsWith(
      service.start({ file: "nope", session: "e", cwd }),
      "NotFound",
      /Cannot find workflow "nope": .*\(available: review, simple\)/,
    );
    await rejectsWith(
      service.start({ file: "./nope.yaml", session: "e", cwd }),
      "NotFound",
      /Cannot find workflow "\.\/nope\.yaml": no file/,
    );
  });
});

Deno.test("WorkflowService.start() refuses a bad file with its line and column and records nothing", async () => {
  await withService(async ({ service, cwd, root }) => {
    await Deno.writeTextFile(
      join(root, "workflows", "bad.yaml"),
      "steps:\n  - title: A\n    prompt: p\n    loop: { min: 4, max: 2 }\n",
    );
    const error = await rejectsWith(
      service.start({ file: "bad", session: "s", cwd }),
      "BadFile",
      /bad\.yaml": line 4, column 18: step 1: loop\.min \(4\) is greater than loop\.max \(2\)/,
    );
    assert.deepEqual(error.location, {
      file: join(root, "workflows", "bad.yaml"),
      line: 4,
      column: 18,
    });
    assert.equal((await service.log({ session: "s" })).status, "none");
  });
});

Deno.test("WorkflowService.start() checks every step's template before starting", async () => {
  await withService(async ({ service, cwd, root }) => {
    await Deno.writeTextFile(
      join(root, "workflows", "typo.yaml"),
      "steps:\n  - title: Fine\n    prompt: ok\n  - title: Later\n    prompt: |\n      line\n      {{#if (eq vars.mdoe 1)}}x{{/if}}\n",
    );
    await rejectsWith(
      service.start({ file: "typo", session: "s", cwd }),
      "BadTemplate",
      /Cannot render step 2 "Later" \(prompt\): unknown variable "vars\.mdoe".*prompt line 2, column 11/,
    );
    // Giving the variable makes it known.
    const ok = await service.start({ file: "typo", session: "s", cwd, vars: { mdoe: "1" } });
    assert.equal(ok.status, "running");
    assert.equal((await service.log({ session: "s" })).events.length, 1);
  });
});

Deno.test("WorkflowService.start() types --var values like the file's defaults", async () => {
  await withService(async ({ service, cwd, root }) => {
    await Deno.writeTextFile(
      join(root, "workflows", "typed.yaml"),
      "vars:\n  n: 2\n  on: false\nsteps:\n  - title: T\n    prompt: '{{#if (gt vars.n 2)}}big{{else}}small{{/if}} {{#if vars.on}}on{{else}}off{{/if}} {{vars.extra}}'\n",
    );
    const view = await service.start({
      file: "typed",
      session: "s",
      cwd,
      vars: { n: "10", on: "true", extra: "x" },
    });
    assert.equal(view.step?.prompt, "big on x");
    await rejectsWith(
      service.start({ file: "typed", session: "t", cwd, vars: { n: "many" } }),
      "BadArgument",
      /"many" is not a number/,
    );
    await rejectsWith(
      service.start({ file: "typed", session: "t", cwd, vars: { "bad-name": "1" } }),
      "BadArgument",
      /Cannot use variable "bad-name"/,
    );
  });
});

Deno.test("WorkflowService answers status, log, step and reset for a session that never started", async () => {
  await withService(async ({ service, cwd }) => {
    const status = await service.status({ session: "empty", cwd });
    assert.equal(status.status, "none");
    assert.deepEqual(status.next.map((n) => n.command), [
      "gateway workflow start FILE --session empty",
      "gateway workflow list",
    ]);
    assert.deepEqual(await service.log({ session: "empty" }), {
      view: "log",
      session: "empty",
      status: "none",
      file: null,
      events: [],
    });
    await rejectsWith(
      service.step({ session: "empty", cwd }),
      "NoSession",
      /no workflow was started/,
    );
    await rejectsWith(service.reset({ session: "empty", cwd }), "NoSession", /no workflow/);
    await rejectsWith(service.status({ session: "", cwd }), "BadArgument", /session name/);
  });
});

Deno.test("WorkflowService.list() shows the root's workflow files, broken ones with their error", async () => {
  await withService(async ({ service, root }) => {
    await Deno.writeTextFile(join(root, "workflows", "broken.yaml"), "steps: [\n");
    await Deno.writeTextFile(join(root, "workflows", "notes.txt"), "not a workflow");
    const list = await service.list();
    assert.equal(list.directory, join(root, "workflows"));
    assert.deepEqual(list.files.map((f) => [f.name, f.steps, f.description]), [
      ["broken", null, null],
      ["review", 3, "Review a change"],
      ["simple", 2, null],
    ]);
    assert.match(list.files[0]?.error ?? "", /broken\.yaml": line 1, column 8: .*never closed/);
    const empty = await service.list({ root: join(root, "elsewhere") });
    assert.deepEqual(empty.files, []);
  });
});

Deno.test("WorkflowService serialises concurrent steps of one session", async () => {
  await withService(async ({ service, cwd }) => {
    await service.start({ file: "review", session: "s", cwd });
    await service.step({ session: "s", cwd });
    const results = await Promise.allSettled([
      service.step({ session: "s", cwd }),
      service.step({ session: "s", cwd }),
    ]);
    assert.ok(results.every((r) => r.status === "fulfilled"));
    const passes = results.map((r) => r.status === "fulfilled" ? r.value.step?.loop?.pass : 0);
    assert.deepEqual(passes.sort(), [2, 3]);
    assert.deepEqual((await service.log({ session: "s" })).events.map((e) => e.kind), [
      "start",
      "step",
      "loop",
      "loop",
    ]);
  });
});

Deno.test("the bundled workflows all load, and each runs to completion", async () => {
  const bundledRoot = new URL("../../", import.meta.url).pathname;
  const dir = await Deno.makeTempDir();
  const db = openGatewayDatabase(join(dir, "gateway.db"));
  try {
    const service = new WorkflowService({ database: db, root: bundledRoot });
    const list = await service.list();
    assert.ok(list.files.length >= 2, "at least two bundled examples");
    for (const file of list.files) {
      assert.equal(file.error, null, `${file.name}: ${file.error}`);
      let view = await service.start({ file: file.name, session: file.name, cwd: dir });
      const seen: string[] = [];
      while (view.status === "running") {
        const step = view.step;
        assert.ok(step);
        assert.ok(!step.prompt.includes("{{"), `${file.name} step ${step.number} rendered fully`);
        seen.push(`${step.number}.${step.loop?.pass ?? 0}`);
        view = await service.step({ session: file.name, cwd: dir });
      }
      assert.equal(view.status, "complete", file.name);
      assert.ok(seen.length > (list.files.find((f) => f.name === file.name)?.steps ?? 0));
    }
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
