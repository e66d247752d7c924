/**
 * Every example in README.md and AGENTS.md is executed here, so the docs cannot
 * drift from the behaviour: each fenced example (a command line of an `sh` block, or a whole
 * `ts`/`jsonc` block) maps to a check below, or to the test that covers it when it cannot run
 * inside a test (the CI gate itself, installing into the user's PATH). An example without an
 * entry fails the first step.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfigText } from "../src/config/config_text.ts";
import { parse as parseJsonc } from "jsonc-parser";
import {
  CLI_RUN_ARGS,
  type CliResult,
  type GatewayHarness,
  withHarness,
} from "./support/gateway_harness.ts";
import { denoCacheDir } from "./support/bounded_cli.ts";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- the v1 client (2025 era), a test-only package
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { pollUntil } from "./support/poll_until.ts";
import { parseRun, withRunHarness } from "./support/run_test_support.ts";

const REPO = new URL("../", import.meta.url);

/** One example: where it is and its text (a command line, or a whole block). */
interface DocExample {
  key: string;
  lang: string;
  text: string;
}

/** Reads the fenced examples of a Markdown file: each `sh` line, each other block whole. */
async function examplesOf(file: string): Promise<DocExample[]> {
  const text = await Deno.readTextFile(new URL(file, REPO));
  return [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].flatMap((match) =>
    examplesIn(file, match[1]!, match[2]!)
  );
}

/** The examples of one fenced block: each `sh` line, or the block whole. */
function examplesIn(file: string, lang: string, body: string): DocExample[] {
  if (lang === "sh") {
    return body.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter((command) => command !== "")
      .map((command) => ({ key: command, lang, text: command }));
  }
  const first = body.split("\n").find((l) => /\w/.test(l) && !l.startsWith("//")) ?? "";
  return [{ key: `${file} ${lang}: ${first.trim()}`, lang, text: body }];
}

/** The blocks of README's first-hour path (each after `<!-- readme-first-hour -->`), in order. */
async function firstHourBlocks(): Promise<Array<{ lang: string; body: string }>> {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  return [...readme.matchAll(/<!-- readme-first-hour -->\s*```(\w+)\n([\s\S]*?)^```$/gm)].map(
    (m) => ({ lang: m[1]!, body: m[2]! }),
  );
}

/** The root the examples run in: the bundled kv and fs, plus what the examples name. */
async function docsRoot(): Promise<Record<string, string>> {
  const bundled = (name: string) => Deno.readTextFile(new URL(`tools/${name}`, REPO));
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  const greet = /```ts\n(\/\*\* Arguments of \{@linkcode greet\}[\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(greet, "README.md has the greet tool module example");
  return {
    "gateway.json": JSON.stringify({
      port: 0,
      policy: [{ match: "kv.delete", action: "ask" }],
    }),
    "tools/kv.ts": await bundled("kv.ts"),
    "tools/fs.ts": await bundled("fs.ts"),
    "tools/greet.ts": greet,
    "tools/github.ts": [
      "/** Issues of a (fixture) tracker. @module */",
      "/** One issue. */",
      "export interface Issue {\n  title: string;\n  comments: number;\n}",
      "/** Lists issues; create issue and list them. */",
      'export function list_issues(args: { state: "open" | "closed" }): Issue[] {',
      '  return args.state === "open"',
      '    ? [{ title: "busy", comments: 12 }, { title: "quiet", comments: 1 }]',
      "    : [];",
      "}",
    ].join("\n"),
    "scripts/hello.ts": '/** Says hello. */\nconsole.log(`Hello, ${args[0] ?? "world"}!`);\n',
    "workflows/sample.yaml": [
      "description: A sample workflow.",
      "steps:",
      "  - title: Plan",
      '    prompt: "Plan step {{step}} of {{totalSteps}}"',
      "  - title: Build",
      '    prompt: "Build"',
    ].join("\n"),
  };
}

type Check = (gw: GatewayHarness) => Promise<void>;

async function ok(gw: GatewayHarness, args: string[], options: { stdin?: string } = {}) {
  const result = await gw.cli(args, options);
  assert.equal(result.code, 0, `gateway ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** The run id a `--json` run document or a yielded answer names. */
async function runJson(gw: GatewayHarness, args: string[]) {
  const result = await gw.cli([...args.slice(0, 1), "--json", ...args.slice(1)]);
  return parseRun(result.stdout);
}

const README_TODO =
  'README.md ts: const todo = (await tools.kv.get({ key: "todo" }) ?? []) as string[];';

/**
 * The README's policy example, served as written but with the filesystem server run from
 * test/servers (npx would download it): writes only under out/, reads only in the root.
 */
async function policyArgsExample(): Promise<void> {
  const readme = await Deno.readTextFile(new URL("README.md", REPO));
  const text = /<!-- readme-policy-args -->\s*```jsonc\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(text, "README.md has the policy-args example");
  const example = parseJsonc(text) as { mcpServers: { fs: Record<string, unknown> } };
  const filesystem = new URL(
    "test/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    REPO,
  );
  const config = {
    ...example,
    port: 0,
    mcpServers: { fs: { command: "node", args: [filesystem.pathname, "."], cwd: "." } },
  };
  await withHarness({
    files: { "gateway.json": JSON.stringify(config), "out/.keep": "", "notes.txt": "mine" },
  }, async (gw) => {
    const root = await Deno.realPath(gw.root);
    const call = async (source: string) => await runJson(gw, ["exec", "--no-check", source]);
    const written = await pollUntil("the fs server to answer", async () => {
      const run = await call(
        `await tools.fs.write_file({ path: ${
          JSON.stringify(`${root}/out/a.txt`)
        }, content: "ok" })`,
      );
      return run.error?.kind === "NamespaceUnavailable" ? undefined : run;
    });
    assert.equal(written.ok, true, JSON.stringify(written));
    assert.equal(await Deno.readTextFile(join(root, "out/a.txt")), "ok");
    const escaped = await call(
      `await tools.fs.write_file({ path: ${
        JSON.stringify(`${root}/out/../b.txt`)
      }, content: "no" })`,
    );
    assert.equal(escaped.error?.kind, "PolicyDenied", JSON.stringify(escaped));
    const read = await call(
      `await tools.fs.read_multiple_files({ paths: [${JSON.stringify(`${root}/notes.txt`)}] })`,
    );
    assert.match(JSON.stringify(read.result), /mine/, JSON.stringify(read));
    const outside = await call(
      `await tools.fs.read_multiple_files({ paths: [${
        JSON.stringify(`${root}/notes.txt`)
      }, "/etc/hostname"] })`,
    );
    assert.equal(outside.error?.kind, "PolicyDenied", JSON.stringify(outside));
  });
}

/** Examples that run here, by key. */
const CHECKS: Record<string, Check> = {
  'README.md jsonc: "mcpServers": {': policyArgsExample,
  [README_TODO]: async (gw) => {
    const readme = await Deno.readTextFile(new URL("README.md", REPO));
    const source = /```ts\n(\/\/ what a model[\s\S]*?)```/.exec(readme)![1]!;
    assert.equal((await ok(gw, ["exec", source])).trim(), "1");
  },
  'deno task gateway exec \'await tools.kv.set({ key: "hello", value: "world" }); await tools.kv.get({ key: "hello" })\'':
    async (gw) => {
      const out = await ok(gw, [
        "exec",
        'await tools.kv.set({ key: "hello", value: "world" }); await tools.kv.get({ key: "hello" })',
      ]);
      assert.equal(out.trim(), "world");
    },
  "gateway exec '1 + 1'": async (gw) => {
    assert.equal((await ok(gw, ["exec", "1 + 1"])).trim(), "2");
  },
  "echo '{\"n\": 2}' | gateway exec 'stdin().json().n * 21'": async (gw) => {
    assert.equal(
      (await ok(gw, ["exec", "stdin().json().n * 21"], { stdin: '{"n": 2}' })).trim(),
      "42",
    );
  },
  "gateway exec report.ts -- --since 2026-01-01": async (gw) => {
    await Deno.writeTextFile(join(gw.cwd, "report.ts"), "console.log(args.join(' '));\n");
    const out = await ok(gw, ["exec", "report.ts", "--", "--since", "2026-01-01"]);
    assert.equal(out.trim(), "--since 2026-01-01");
  },
  "gateway run hello World": async (gw) => {
    assert.equal((await ok(gw, ["run", "hello", "World"])).trim(), "Hello, World!");
  },
  "gateway tools": async (gw) => {
    assert.match(await ok(gw, ["tools"]), /^kv\s+local\s+\d+ tools\s+ready/m);
  },
  "gateway tools types kv,fs": async (gw) => {
    const out = await ok(gw, ["tools", "types", "kv,fs"]);
    assert.match(out, /^ {2}namespace kv \{/m);
    assert.match(out, /^ {2}namespace fs \{/m);
  },
  "gateway catalog --budget 1000": async (gw) => {
    assert.match(await ok(gw, ["catalog", "--budget", "1000"]), /COMPLETE|PARTIAL/);
  },
  'gateway search "create issue" --limit 5': async (gw) => {
    assert.match(await ok(gw, ["search", "create issue", "--limit", "5"]), /github\.list_issues/);
  },
  "gateway describe tools.kv.get": async (gw) => {
    assert.match(await ok(gw, ["describe", "tools.kv.get"]), /key: string/);
  },
  "gateway describe tools.kv.get --depth 2 | --full": async (gw) => {
    assert.match(await ok(gw, ["describe", "tools.kv.get", "--depth", "2"]), /key: string/);
    assert.match(await ok(gw, ["describe", "tools.kv.get", "--full"]), /tools\.kv\.get\.raw\(/);
  },
  "gateway catalog --since VERSION": async (gw) => {
    const { version } = JSON.parse(await ok(gw, ["catalog", "--json"])) as { version: string };
    assert.match(await ok(gw, ["catalog", "--since", version]), /^No changes since /);
  },
  "gateway history --failed": async (gw) => {
    await gw.cli(["exec", "throw new Error('for history')"]);
    assert.match(await ok(gw, ["history", "--failed"]), /ScriptError/);
  },
  "gateway history show ID | rerun ID | save ID NAME": async (gw) => {
    const run = await runJson(gw, ["exec", "console.log('again')"]);
    assert.match(await ok(gw, ["history", "show", run.runId]), /again/);
    assert.match(await ok(gw, ["history", "rerun", run.runId]), /again/);
    await ok(gw, ["history", "save", run.runId, "again"]);
    assert.equal((await ok(gw, ["run", "again"])).trim(), "again");
  },
  "gateway exec --yield 2000 'long()' ; gateway wait ID": async (gw) => {
    const source = "await new Promise((r) => setTimeout(r, 1500));\n'long done'";
    const yielded = await gw.cli(["exec", "--json", "--yield", "200", source]);
    const answer = JSON.parse(yielded.stdout) as { status?: string; runId: string };
    assert.equal(answer.status, "running");
    assert.match(await ok(gw, ["wait", answer.runId]), /long done/);
  },
  "gateway approvals ; gateway approve RUNID [--deny]": async (gw) => {
    const source = 'await tools.kv["delete"]({ key: "x" });\n"deleted"';
    const yielded = await gw.cli(["exec", "--json", "--yield", "300", source]);
    const { runId } = JSON.parse(yielded.stdout) as { runId: string };
    assert.match(await ok(gw, ["approvals"]), new RegExp(runId));
    await ok(gw, ["approve", runId]);
    assert.match(await ok(gw, ["wait", runId]), /deleted/);
  },
  "gateway workflow start sample ; gateway workflow step": async (gw) => {
    assert.match(await ok(gw, ["workflow", "start", "sample"]), /Plan step 1 of 2/);
    assert.match(await ok(gw, ["workflow", "step"]), /Build/);
  },
  "gateway --llm-help": async (gw) => {
    assert.match(await ok(gw, ["--llm-help"]), /`tools\.kv`: local module, ready/);
  },
  "gateway server | start | stop | status": async (gw) => {
    assert.match(await ok(gw, ["status"]), /running|pid/i);
  },
  "gateway init": async (gw) => {
    const project = await Deno.makeTempDir({ dir: gw.cwd });
    await gw.cli(["init"], { cwd: project });
    assert.ok((await Deno.stat(join(project, ".gateway", "workflows", "sample.yaml"))).isFile);
  },
  "gateway history --kind PolicyDenied --text deploy": async (gw) => {
    assert.equal(
      await ok(gw, ["history", "--kind", "PolicyDenied", "--text", "deploy"]),
      "no runs match\n",
    );
  },
  "gateway service install --print --platform macos": async (gw) => {
    const out = await ok(gw, ["service", "install", "--print", "--platform", "macos"]);
    assert.match(out, /^# launchd agent: .*\.plist\n<\?xml/);
  },
  "gateway service install [--print]": async (gw) => {
    assert.match(await ok(gw, ["service", "install", "--print"]), /gateway|server/);
  },
  'README.md jsonc: "runId": "…",': async (gw) => {
    // The run document example: an unknown tool, reported as the README shows it.
    const readme = await Deno.readTextFile(new URL("README.md", REPO));
    const shown = /"message": "(Unknown tool [^\n]*)",\n\s*"line": (\d+),\n\s*"column": (\d+)/
      .exec(readme);
    assert.ok(shown, "README.md shows an UnknownTool run document");
    const run = await runJson(gw, ["exec", "--no-check", 'await tools.kv.gett({ key: "a" })']);
    assert.equal(run.error?.kind, "UnknownTool");
    assert.ok(
      run.error?.message.startsWith(JSON.parse(`"${shown[1]}"`)),
      `${run.error?.message} starts like the README's`,
    );
    assert.deepEqual([run.error?.line, run.error?.column], [Number(shown[2]), Number(shown[3])]);
  },
  'README.md jsonc: "port": 9420, // absent: 9420, or a free port when taken; 0 = any free port':
    async () => {
      const readme = await Deno.readTextFile(new URL("README.md", REPO));
      const config = /```jsonc\n(\{\n\s*"port": 9420[\s\S]*?)```/.exec(readme)![1]!;
      const loaded = parseConfigText(config, { file: "README.md", env: { TOKEN: "t" } });
      assert.equal(loaded.config.exec.maxToolCalls, 1000);
      assert.equal(loaded.config.tools.kv?.isolate, true);
    },
  "README.md ts: /** Arguments of {@linkcode greet}. */": async (gw) => {
    const run = await runJson(gw, ["exec", 'await tools.greet.greet({ name: "Ada" })']);
    assert.deepEqual(run.result, { message: "Hello, Ada!" });
  },
  "gateway catalog": async (gw) => {
    assert.match(await ok(gw, ["catalog"]), /github: 1 tool/);
  },
  'gateway search "create issue"': async (gw) => {
    assert.match(await ok(gw, ["search", "create issue"]), /github\.list_issues/);
  },
  "gateway tools types github": async (gw) => {
    assert.match(await ok(gw, ["tools", "types", "github"]), /list_issues/);
  },
  'gateway exec \'const issues = await tools.github.list_issues({ state: "open" });': async (
    gw,
  ) => {
    const agents = await Deno.readTextFile(new URL("AGENTS.md", REPO));
    const source = /gateway exec '(const issues[\s\S]*?)'\n```/.exec(agents)![1]!;
    const run = await runJson(gw, ["exec", source]);
    assert.deepEqual(run.result, ["busy"]);
  },
  "issues.filter((i) => i.comments > 10).map((i) => i.title)'": async () => {
    // The second line of the example above, which runs it whole.
  },
};

/** The "Running several instances" walkthrough: run as written, with PostgreSQL and nginx. */
const SEVERAL_INSTANCES = [
  "export DATABASE_URL=postgres://gateway:secret@db.internal:5432/gateway",
  "export GATEWAY_ROOT=/srv/gateway",
  "export STATE=/var/lib/gateway",
  'export PORTS="9421 9422 9423"',
  'README.md jsonc: "store": { "postgres": "${env:DATABASE_URL}", "poolSize": 10 }',
  'mkdir -p -m 700 "$STATE"',
  "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > \"$STATE/token\"",
  'chmod 600 "$STATE/token"',
  "for port in $PORTS; do",
  'mkdir -p -m 700 "$STATE/$port"',
  'install -m 600 "$STATE/token" "$STATE/$port/token"',
  'GATEWAY_DATA_DIR="$STATE/$port" GATEWAY_PORT="$port" gateway start',
  "done",
  "README.md nginx: upstream gateway {",
  'TOKEN=$(cat "$STATE/token")',
  'curl -s -w \'\\n\' -H "Authorization: Bearer $TOKEN" -H "content-type: application/json" \\',
  '-d \'{"source": "6 * 7"}\' http://127.0.0.1:8080/exec',
  'curl -s -w \'\\n\' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:8080/history?limit=5"',
  'for port in $PORTS; do GATEWAY_DATA_DIR="$STATE/$port" gateway stop; done',
];

/** Examples a test cannot run, with the test or gate that does. */
const COVERED_ELSEWHERE: Record<string, string> = {
  ...Object.fromEntries(
    SEVERAL_INSTANCES.map((key) => [
      key,
      "test/readme_several_instances_test.ts runs the README's several-instances section as written",
    ]),
  ),
  "deno task test": "the CI gate (.ci/run) runs the whole suite",
  "deno task check": "the CI gate (.ci/run) runs it before the tests",
  "deno task bench": "test/bench/bench.ts, run by hand (speed is never asserted in tests)",
  "deno task bench:ab ../other":
    "test/bench/ab_checkouts.ts, run by hand against a second checkout (speed is never asserted in tests)",
  "deno task bundle":
    "deno task check builds every bundle the same way (test/bundles.ts) and compares its output",
  "gateway mcp": "test/mcp_server_test.ts drives `gateway mcp` over stdio",
  "gateway status --all ; gateway stop --all":
    "test/multi_root_test.ts runs two roots at once, then status --all and stop --all",
  "gateway import .mcp.json": "test/existing_configs_test.ts imports a .mcp.json into gateway.json",
  "gateway ui [--print]":
    "test/ui_command_test.ts prints a one-use sign-in address and opens the dashboard with it",
  'README.md json: "mcpServers": {':
    "test/existing_configs_test.ts serves this .mcp.json (from Claude Code's documentation)",
  "# .gateway/gateway.env, mode 0600 (chmod 600 .gateway/gateway.env)":
    "test/existing_configs_test.ts sets the .mcp.json variables through gateway.env",
  "API_BASE_URL=http://127.0.0.1:8080": "test/existing_configs_test.ts (gateway.env)",
  "API_KEY=s3cret": "test/existing_configs_test.ts (gateway.env)",
  'README.md text: waiting for approval: danger.wipe({"what":"disk"}) held by policy rule "danger.wipe": gateway approve RUNID (or gateway approve RUNID --deny)':
    "test/approvals_visible_test.ts sees this line on gateway exec's stderr",
  'README.md jsonc: "apis": {':
    "test/openapi_apis_cli_test.ts runs the README's apis config against Prism",
  'README.md ts: const repos = await tools.github.repos_list_for_org({ org: "denoland" });':
    "test/openapi_apis_cli_test.ts runs this script against Prism serving the GitHub spec",
  "gateway auth login remote":
    "test/oauth_upstream_test.ts logs in against an OAuth-protected MCP server, playing the user",
  "gateway auth status": "test/oauth_upstream_test.ts reads auth status before and after login",
  "gateway auth logout remote": "test/oauth_upstream_test.ts logs out and checks the namespace",
  "OTEL_DENO=true OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 gateway start":
    "test/telemetry_test.ts starts the gateway with these variables and a local OTLP receiver",
};

Deno.test("every README.md and AGENTS.md example runs as documented", {
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const examples = [...await examplesOf("README.md"), ...await examplesOf("AGENTS.md")];
  const firstHour = new Set(
    (await firstHourBlocks()).flatMap((b) => examplesIn("README.md", b.lang, b.body))
      .map((e) => e.key),
  );
  await t.step("every example has a check", () => {
    const unchecked = examples.filter((e) =>
      !(e.key in CHECKS) && !(e.key in COVERED_ELSEWHERE) && !firstHour.has(e.key)
    );
    assert.deepEqual(unchecked.map((e) => e.key), []);
  });
  const files = await docsRoot();
  await withRunHarness({ files }, async (gw) => {
    const seen = new Set<string>();
    for (const example of examples) {
      const check = CHECKS[example.key];
      // An example shown twice (the first-hour path repeats some) runs once.
      if (check === undefined || seen.has(example.key)) continue;
      seen.add(example.key);
      await t.step(example.key.slice(0, 100), () => check(gw));
    }
  });
});

/** What a line of the first-hour path printed, and what the run so far knows. */
interface FirstHourStep {
  out: CliResult;
  /** The run id the `--yield` line printed. */
  runId: string;
  env: Record<string, string>;
  cwd: string;
}

/** What each line of the first-hour path must print (stderr is empty unless said here). */
const FIRST_HOUR_CHECKS: Record<string, (step: FirstHourStep) => Promise<void> | void> = {
  "gateway init": ({ out }) => {
    assert.match(out.stdout, /^created .*\/shop\/\.gateway\/workflows\/sample\.yaml$/m);
    assert.match(out.stdout, /^root ready: try gateway exec/m);
  },
  "gateway tools": ({ out }) => {
    assert.equal(out.stdout, "hello            local    1 tool   ready\n");
  },
  "gateway exec 'await tools.hello.greet({ name: \"Ada\" })'": ({ out }) => {
    assert.equal(out.stdout, '{\n  "message": "Hello, Ada!"\n}\n');
  },
  "gateway run hello World": ({ out }) => {
    assert.equal(out.stdout, "Hello, World!\n");
  },
  "gateway workflow start sample ; gateway workflow step": ({ out }) => {
    assert.match(out.stdout, /^## Plan\n[\s\S]*^## Implement\n/m);
  },
  "gateway exec --yield 1000 'await tools.hello.greet({ name: \"Bob\" })'": ({ out, runId }) => {
    assert.match(runId, /^[0-9a-z]{21}$/);
    assert.equal(
      out.stderr,
      `waiting for approval: hello.greet({"name":"Bob"}) held by policy rule "hello.greet": ` +
        `gateway approve ${runId} (or gateway approve ${runId} --deny)\n` +
        `run ${runId} is still running: gateway wait ${runId}\n`,
    );
  },
  "gateway approvals": ({ out, runId }) => {
    assert.match(out.stdout, new RegExp(`^${runId}:1  hello\\.greet\\(\\{"name":"Bob"\\}\\)`, "m"));
    assert.match(
      out.stdout,
      new RegExp(`gateway approve ${runId} +\\| +gateway approve ${runId} --deny`),
    );
  },
  "gateway approve RUNID ; gateway wait RUNID": ({ out, runId }) => {
    assert.equal(
      out.stdout,
      `allowed 1 held call of ${runId}\n{\n  "message": "Hello, Bob!"\n}\n`,
    );
  },
  "gateway ui": async ({ out }) => {
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/ui\/login\?code=[0-9a-f]+)\n$/.exec(out.stdout)?.[1];
    assert.ok(url, out.stdout);
    const signIn = await fetch(url, { redirect: "manual" });
    await signIn.body?.cancel();
    assert.equal(signIn.status, 303);
    assert.match(signIn.headers.get("set-cookie") ?? "", /HttpOnly/i);
  },
  "gateway mcp --print-config": async ({ out, env }) => {
    // The stdio entry, run by a host with a bare environment, answers a run.
    const start = out.stdout.indexOf("## stdio: Claude Code");
    const open = out.stdout.indexOf("\n{", start) + 1;
    const entry = (JSON.parse(out.stdout.slice(open, out.stdout.indexOf("\n}\n", open) + 2)) as {
      mcpServers: { gateway: { command: string; args: string[] } };
    }).mcpServers.gateway;
    const client = new Client({ name: "host", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: "env",
        args: ["-i", `PATH=${env.PATH}`, `HOME=${env.HOME}`, entry.command, ...entry.args],
        cwd: "/",
        stderr: "pipe",
      }),
    );
    try {
      const answer = await client.callTool({ name: "exec", arguments: { source: "6 * 7" } });
      assert.equal((answer.structuredContent as { result: unknown }).result, 42);
    } finally {
      await client.close();
    }
  },
};

Deno.test("README's first hour runs as written: init, tools, exec, approvals, ui, an MCP host", async () => {
  const blocks = await firstHourBlocks();
  assert.deepEqual(blocks.map((b) => b.lang), ["sh", "jsonc", "sh"]);
  const base = await Deno.makeTempDir({ prefix: "gateway-first-hour-" });
  // A newcomer's machine: a HOME of its own (with this machine's Deno cache, so nothing is
  // fetched), `gateway` on PATH as `deno task install` puts it, no gateway variables but a
  // port for tests (never 9420) and the log level.
  const home = join(base, "home");
  const bin = join(base, "bin");
  await Deno.mkdir(join(home, ".cache"), { recursive: true });
  await Deno.symlink(denoCacheDir(), join(home, ".cache", "deno"));
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    join(bin, "gateway"),
    `#!/bin/sh\nexec ${[Deno.execPath(), ...CLI_RUN_ARGS].map((a) => `'${a}'`).join(" ")} "$@"\n`,
    { mode: 0o755 },
  );
  const env = {
    HOME: home,
    PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    GATEWAY_PORT: "0",
    // Info lines in the server's log: the test waits for "config reloaded" there.
    GATEWAY_LOG: "info",
    NO_COLOR: "1",
  };
  let cwd = join(base, "work");
  await Deno.mkdir(cwd);
  let runId = "";
  const sh = async (line: string): Promise<CliResult> => {
    const out = await new Deno.Command("sh", {
      args: ["-c", line],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
  };
  try {
    for (const block of blocks) {
      if (block.lang === "jsonc") {
        // The config as shown, where it says; a person then takes longer than the server
        // takes to reload it, so the test waits for the reload the server logs.
        const roots = join(home, ".local", "share", "gateway", "roots");
        const [dataDir] = [...Deno.readDirSync(roots)].map((e) => join(roots, e.name));
        const log = join(dataDir!, "server.log");
        const reloads = () => (Deno.readTextFileSync(log).match(/config reloaded/g) ?? []).length;
        const before = reloads();
        await Deno.writeTextFile(join(cwd, ".gateway", "gateway.json"), block.body);
        await pollUntil(
          "the server to reload gateway.json",
          () => Promise.resolve(reloads() > before ? true : undefined),
        );
        continue;
      }
      for (const raw of block.body.split("\n")) {
        const line = raw.replace(/\s+#.*$/, "").trim();
        if (line === "") continue;
        const out = await sh(line.replaceAll("RUNID", runId));
        assert.equal(out.code, 0, `${line}: ${out.stderr}`);
        const cd = /(?:^|&& )cd (\S+)$/.exec(line);
        if (cd) cwd = join(cwd, cd[1]!);
        if (line.includes("--yield")) runId = out.stdout.trim().split("\n").at(-1) ?? "";
        const check = FIRST_HOUR_CHECKS[line];
        if (!line.includes("--yield")) assert.equal(out.stderr, "", `${line} printed on stderr`);
        await check?.({ out, runId, env, cwd });
        if (check === undefined) assert.match(line, /^mkdir /, `no check for "${line}"`);
      }
    }
  } finally {
    await sh("gateway stop");
    await Deno.remove(base, { recursive: true }).catch(() => undefined);
  }
});
