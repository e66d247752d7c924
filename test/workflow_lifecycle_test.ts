/**
 * End-to-end proof of workflows from the CLI, on the bundled root's workflows: the whole lifecycle
 * (start by name, steps, a loop ended at or after min, refused before min, ended by itself at
 * max, complete), `--var`, `--json`, interleaved sessions, a server restart mid-workflow, abort,
 * reset, `log`, `list`, and a workflow file changed under a running session.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { RpcError } from "../src/protocol/json_rpc.ts";
import {
  type CliResult,
  type GatewayHarness,
  REPO,
  withHarness,
} from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { pidAlive as alive } from "../src/config/server_state.ts";
import type { WorkflowView } from "../src/workflows/workflow_view.ts";

/** The JSON view of start, step, status, reset and abort (`--json`). */
type View = WorkflowView;

interface LogView {
  view: "log";
  status: string;
  events: Array<
    {
      at: number;
      time: string;
      kind: string;
      step: number | null;
      pass: number | null;
      reason: string | null;
    }
  >;
}

interface ListView {
  files: Array<{ name: string; file: string; steps: number | null; error: string | null }>;
  sessions: Array<
    { session: string; name: string; step: number; pass: number; fileChanged: boolean }
  >;
}

const CODE_REVIEW = join(REPO, "workflows", "code-review.yaml");

function workflow(gw: GatewayHarness, args: string[], cwd?: string): Promise<CliResult> {
  return gw.cli(["workflow", ...args], cwd === undefined ? {} : { cwd });
}

/** Runs a workflow command that must succeed and returns its stdout. */
async function ok(gw: GatewayHarness, args: string[], cwd?: string): Promise<string> {
  const result = await workflow(gw, args, cwd);
  assert.equal(result.code, 0, `gateway workflow ${args.join(" ")}: ${result.stderr}`);
  assert.equal(result.stderr, "");
  return result.stdout;
}

/** Runs a workflow command with `--json` that must succeed and returns the parsed view. */
async function json<T = View>(gw: GatewayHarness, args: string[], cwd?: string): Promise<T> {
  return JSON.parse(await ok(gw, [...args, "--json"], cwd)) as T;
}

/** Runs a workflow command that must be refused and returns its one-line error. */
async function refused(gw: GatewayHarness, args: string[], cwd?: string): Promise<string> {
  const result = await workflow(gw, args, cwd);
  assert.notEqual(result.code, 0, `gateway workflow ${args.join(" ")} was not refused`);
  assert.equal(result.stdout, "");
  return result.stderr;
}

Deno.test(
  "workflows end to end from the CLI: lifecycle, sessions, restart, log, list, changed files",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async (t) => {
    await withHarness({ bundled: true }, async (gw) => {
      await t.step("start shows step 1 of a bundled workflow named without a path", async () => {
        const out = await ok(gw, [
          "start",
          "code-review",
          "--session",
          "a",
          "--var",
          "focus=security",
        ]);
        assert.ok(
          out.startsWith("## Understand the change\n\nRead the description of the change"),
          out,
        );
        assert.ok(
          out.includes(`\n---\nWorkflow: code-review (${CODE_REVIEW}), session "a"\n`),
          out,
        );
        assert.ok(out.includes("\nStep 1 of 3\n"), out);
        assert.ok(
          out.includes("Next: run `gateway workflow step --session a` when this step is done"),
          out,
        );
      });

      await t.step("a second session runs another workflow beside the first", async () => {
        const view = await json(gw, [
          "start",
          "feature",
          "--session",
          "b",
          "--var",
          "feature=CSV export",
          "--var",
          "slices=2",
        ]);
        assert.equal(view.view, "workflow");
        assert.equal(view.session, "b");
        assert.equal(view.status, "running");
        assert.equal(view.workflow?.name, "feature");
        assert.equal(view.workflow?.totalSteps, 3);
        assert.deepEqual(
          [view.step?.number, view.step?.total, view.step?.title],
          [1, 3, "Plan CSV export"],
        );
        assert.match(view.step?.prompt ?? "", /^Split CSV export into about 2 slices/);
        assert.deepEqual(view.events.map((e) => e.kind), ["start"]);
        assert.equal("text" in view, false, "--json prints the view without the text");
      });

      await t.step(
        "the loop step repeats and --end-loop before min is refused with passes to go",
        async () => {
          const a1 = await ok(gw, ["step", "--session", "a"]);
          assert.ok(
            a1.startsWith("## Review round 1 of up to 4\n\nFirst round: check security."),
            a1,
          );
          assert.ok(a1.includes("Step 2 of 3, loop pass 1 (min 2, max 4)"), a1);
          assert.ok(a1.includes("--end-loop is accepted from pass 2 on (1 more pass)."), a1);
          assert.ok(!a1.includes("Strict review"), "strict is false by default");

          const b1 = await json(gw, ["step", "--session", "b"]);
          assert.deepEqual([b1.step?.number, b1.step?.title, b1.step?.loop?.pass], [
            2,
            "Slice 1",
            1,
          ]);

          const early = await refused(gw, ["step", "--session", "a", "--end-loop", "looks fine"]);
          assert.equal(
            early,
            'error[Refused]: Cannot end loop of step 2 "Review round 1 of up to 4" at pass 1: ' +
              "1 more pass required before --end-loop (min 2)\n",
          );
          // The refusal moved nothing.
          const still = await json(gw, ["status", "--session", "a"]);
          assert.deepEqual([still.step?.number, still.step?.loop?.pass], [2, 1]);
          assert.equal(still.step?.loop?.passesRemaining, 1);
          assert.equal(still.step?.loop?.canEnd, false);

          const a2 = await json(gw, ["step", "--session", "a"]);
          assert.equal(a2.step?.title, "Review round 2 of up to 4");
          assert.match(a2.step?.prompt ?? "", /^Second round: check the tests\./);
          assert.match(
            a2.step?.prompt ?? "",
            /If a further round would find nothing new, end the loop/,
          );
          assert.deepEqual(a2.step?.loop, {
            pass: 2,
            min: 2,
            max: 4,
            canEnd: true,
            passesRemaining: 0,
            lastPass: false,
          });
          assert.deepEqual(a2.events.map((e) => [e.kind, e.step, e.pass]), [["loop", 2, 2]]);
          assert.deepEqual(a2.next.map((n) => n.command), [
            "gateway workflow step --session a",
            'gateway workflow step --end-loop "reason" --session a',
          ]);
        },
      );

      await t.step("the sessions move independently, each to its own next step", async () => {
        const b2 = await json(gw, ["step", "--session", "b"]);
        assert.deepEqual([b2.step?.title, b2.step?.loop?.pass], ["Slice 2", 2]);
        const b3 = await ok(gw, ["step", "--session", "b", "--end-loop", "both slices built"]);
        assert.ok(
          b3.startsWith("## Document\n\nUpdate the README or the reference docs for CSV export"),
        );
        assert.ok(b3.includes("and its limits. Step 3 of 3.\n"), b3);

        const a3 = await ok(gw, ["step", "--session", "a", "--end-loop", "no new findings"]);
        assert.ok(a3.startsWith("## Verdict\n"), a3);
        assert.ok(a3.includes("Session: a."), a3);
        assert.ok(a3.includes("when this step is done, to finish the workflow"), a3);
        const done = await ok(gw, ["step", "--session", "a"]);
        assert.ok(done.startsWith('Workflow "code-review" is complete: all 3 steps done.\n'), done);
        assert.ok(
          done.includes("Next: run `gateway workflow start code-review --session a`"),
          done,
        );
        const after = await refused(gw, ["step", "--session", "a"]);
        assert.match(
          after,
          /^error\[Refused\]: Cannot step session "a": workflow "code-review" is complete/,
        );

        // b was not moved by a's steps.
        const b = await json(gw, ["status", "--session", "b"]);
        assert.deepEqual([b.status, b.step?.number], ["running", 3]);
        // RPC answers the same view, with the agent text beside it.
        const client = await gw.client();
        try {
          const rpc = await client.request<View & { text: string }>("workflow.status", {
            session: "b",
          });
          assert.equal(rpc.step?.title, "Document");
          assert.match(rpc.text, /^## Document\n/);
          const error = await client.request("workflow.step", { session: "a" }).then(
            () => null,
            (e: unknown) => e,
          );
          assert.ok(error instanceof RpcError);
          assert.equal(error.data?.kind, "Refused");
        } finally {
          await client.close();
        }
      });

      await t.step("workflow log shows every event with its time and reason", async () => {
        const log = await json<LogView>(gw, ["log", "--session", "a"]);
        assert.equal(log.status, "complete");
        assert.deepEqual(log.events.map((e) => [e.kind, e.step, e.pass, e.reason]), [
          ["start", 1, null, null],
          ["step", 2, 1, null],
          ["loop", 2, 2, null],
          ["end-loop", 2, 2, "no new findings"],
          ["step", 3, null, null],
          ["complete", 3, null, null],
        ]);
        for (const event of log.events) {
          assert.equal(new Date(event.time).getTime(), event.at);
          assert.ok(event.at <= Date.now(), "no event is stamped in the future");
        }
        const text = await ok(gw, ["log", "--session", "a"]);
        const lines = text.trimEnd().split("\n");
        assert.equal(lines[0], `Session "a": ${CODE_REVIEW} (complete)`);
        assert.match(
          lines[4] ?? "",
          /^ {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}end-loop {2}step 2, pass 2: no new findings$/,
        );
        assert.equal(lines.length, 7);
      });

      await t.step("a loop ends by itself at max, and --var reaches the templates", async () => {
        await ok(gw, ["start", "code-review", "--session", "m", "--var", "strict=true"]);
        const passes: View[] = [];
        for (let pass = 1; pass <= 4; pass++) {
          passes.push(await json(gw, ["step", "--session", "m"]));
        }
        assert.deepEqual(passes.map((v) => v.step?.loop?.pass), [1, 2, 3, 4]);
        assert.match(passes[0]!.step?.prompt ?? "", /First round: check correctness\./);
        // `strict: false` in the file became true from --var, and shows below max.
        assert.match(passes[2]!.step?.prompt ?? "", /Strict review: do not end the loop/);
        assert.doesNotMatch(passes[3]!.step?.prompt ?? "", /Strict review/);
        assert.equal(passes[3]!.step?.loop?.lastPass, true);
        assert.match(
          passes[3]!.next[0]?.description ?? "",
          /it is the last \(max 4\), the loop then ends by itself/,
        );
        const text = await ok(gw, ["status", "--session", "m"]);
        assert.ok(text.includes("Step 2 of 3, loop pass 4 (min 2, max 4), last pass"), text);
        const verdict = await json(gw, ["step", "--session", "m"]);
        assert.equal(verdict.step?.title, "Verdict");
        assert.deepEqual(verdict.events.map((e) => [e.kind, e.step, e.pass, e.reason]), [
          ["end-loop", 2, 4, "reached max of 4 passes"],
          ["step", 3, null, null],
        ]);
        const done = await json(gw, ["step", "--session", "m"]);
        assert.equal(done.status, "complete");
      });

      await t.step("workflow list shows the files and the sessions still running", async () => {
        const text = await ok(gw, ["list"]);
        assert.ok(text.startsWith(`Workflows in ${join(REPO, "workflows")}:\n`), text);
        for (const name of ["bug-fix", "code-review", "feature"]) {
          assert.match(text, new RegExp(`^ {2}${name} {2}\\(\\d+ steps\\) {2}\\S`, "m"));
        }
        assert.match(
          text,
          /^Running sessions:\n {2}b {2}feature {2}step 3 of 3 {2}updated \d{4}-/m,
        );
        const list = await json<ListView>(gw, ["list"]);
        assert.deepEqual(list.files.map((f) => [f.name, f.error]), [
          ["bug-fix", null],
          ["code-review", null],
          ["feature", null],
        ]);
        // a and m are complete: only b is still running.
        assert.deepEqual(list.sessions.map((s) => [s.session, s.name, s.step]), [[
          "b",
          "feature",
          3,
        ]]);
      });

      await t.step("a restart of the server mid-loop continues where the session was", async () => {
        await ok(gw, ["start", "bug-fix", "--session", "r", "--var", "bug=the login loop"]);
        await ok(gw, ["step", "--session", "r"]);
        const before = await json(gw, ["step", "--session", "r"]);
        assert.deepEqual([before.step?.title, before.step?.loop?.pass], [
          "Fix pass 2: the login loop",
          2,
        ]);
        const { pid } = await gw.server();
        const stopped = await gw.cli(["stop"]);
        assert.equal(stopped.code, 0, stopped.stderr);
        await pollUntil(
          "the old server to exit",
          () => Promise.resolve(alive(pid) ? undefined : true),
          {
            timeoutMs: 10_000,
          },
        );

        // The next command starts a new server, which reads the session from gateway.db.
        const status = await ok(gw, ["status", "--session", "r"]);
        assert.ok(status.startsWith("## Fix pass 2: the login loop\n"), status);
        const { pid: newPid } = await gw.server();
        assert.notEqual(newPid, pid);
        const next = await json(gw, ["step", "--session", "r"]);
        assert.deepEqual([next.step?.number, next.step?.loop?.pass], [2, 3]);
        const ended = await json(gw, ["step", "--session", "r", "--end-loop", "test passes now"]);
        assert.equal(ended.step?.title, "Guard against regressions");
        const log = await json<LogView>(gw, ["log", "--session", "r"]);
        assert.deepEqual(log.events.map((e) => e.kind), [
          "start",
          "step",
          "loop",
          "loop",
          "end-loop",
          "step",
        ]);
        // Sessions started before the restart are still there too.
        const b = await json(gw, ["status", "--session", "b"]);
        assert.deepEqual([b.status, b.step?.title], ["running", "Document"]);
      });

      await t.step("abort records its reason; abort without one is a usage error", async () => {
        const missing = await workflow(gw, ["abort", "--session", "r"]);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /^error\[Usage\]: workflow abort needs --reason/);
        const view = await json(gw, ["abort", "--session", "r", "--reason", "the user took over"]);
        assert.equal(view.status, "aborted");
        assert.equal(
          view.message,
          'Workflow "bug-fix" was aborted at step 3 of 4: the user took over.',
        );
        const log = await json<LogView>(gw, ["log", "--session", "r"]);
        assert.deepEqual(log.events.at(-1), {
          ...log.events.at(-1)!,
          kind: "abort",
          step: 3,
          reason: "the user took over",
        });
        const text = await ok(gw, ["log", "--session", "r"]);
        assert.match(text, / abort +step 3: the user took over\n?$/);
        const step = await refused(gw, ["step", "--session", "r"]);
        assert.match(
          step,
          /was aborted: start it again with gateway workflow start bug-fix --session r$/m,
        );
      });

      await t.step("reset starts the session over at step 1 and is logged", async () => {
        const view = await json(gw, ["reset", "--session", "r"]);
        assert.deepEqual([view.status, view.step?.number, view.step?.title], [
          "running",
          1,
          "Reproduce the login loop",
        ]);
        const log = await json<LogView>(gw, ["log", "--session", "r"]);
        assert.equal(log.events.at(-1)?.kind, "reset");
      });

      await t.step("the default session belongs to the working directory", async () => {
        const here = join(gw.cwd, "project-one");
        const there = join(gw.cwd, "project-two");
        await Deno.mkdir(here);
        await Deno.mkdir(there);
        const out = await ok(gw, ["start", "feature"], here);
        assert.ok(out.includes("Next: run `gateway workflow step` when this step is done"), out);
        await ok(gw, ["step"], here);
        const mine = await json(gw, ["status"], here);
        assert.deepEqual([mine.step?.number, mine.step?.title], [2, "Slice 1"]);
        const other = await json(gw, ["status"], there);
        assert.equal(other.status, "none");
        assert.notEqual(other.session, mine.session);
        await ok(gw, ["abort", "--reason", "done with the demo"], here);
      });

      await t.step("a workflow file changed under a running session is reported", async () => {
        const dir = join(gw.cwd, "flows");
        await Deno.mkdir(dir);
        const file = join(dir, "custom.yaml");
        await Deno.writeTextFile(
          file,
          "steps:\n  - title: Draft\n    prompt: Write the draft.\n  - title: Polish\n    prompt: Polish it.\n",
        );
        const started = await json(gw, ["start", "flows/custom.yaml", "--session", "e"]);
        assert.equal(started.workflow?.file, file);
        assert.equal(started.fileChanged, false);

        await Deno.writeTextFile(
          file,
          "steps:\n  - title: Outline\n    prompt: Outline first.\n  - title: Polish\n    prompt: Polish it.\n",
        );
        const status = await json(gw, ["status", "--session", "e"]);
        assert.equal(status.fileChanged, true);
        assert.equal(
          status.step?.title,
          "Draft",
          "the session follows the version it started with",
        );
        assert.match(status.warnings[0] ?? "", /changed since this session started/);
        const text = await ok(gw, ["status", "--session", "e"]);
        assert.match(
          text,
          new RegExp(
            `Warning: The workflow file "${file}" changed since this session started.*reset`,
          ),
        );
        const step = await refused(gw, ["step", "--session", "e"]);
        assert.match(
          step,
          new RegExp(
            `^error\\[FileChanged\\]: Cannot step session "e": workflow file "${file}" changed since the session started: run gateway workflow reset --session e to start over`,
          ),
        );
        const list = await json<ListView>(gw, ["list"]);
        assert.equal(list.sessions.find((s) => s.session === "e")?.fileChanged, true);
        assert.match(
          await ok(gw, ["list"]),
          /^ {2}e {2}custom {2}step 1 of 2 .*FILE CHANGED: reset or abort it$/m,
        );

        const reset = await json(gw, ["reset", "--session", "e"]);
        assert.deepEqual([reset.step?.title, reset.fileChanged], ["Outline", false]);
        await Deno.remove(file);
        const gone = await refused(gw, ["step", "--session", "e"]);
        assert.match(gone, /^error\[FileChanged\]: .*was deleted since the session started/);
        await ok(gw, ["abort", "--session", "e", "--reason", "file removed"]);
      });
    });
  },
);
