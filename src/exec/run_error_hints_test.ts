import assert from "node:assert/strict";
import {
  asModuleSyntaxError,
  explainRunError,
  type RunErrorContext,
  withoutRunPaths,
} from "./run_error_hints.ts";

const context: RunErrorContext = {
  source: "",
  toolMap: {
    kv: { name: "kv", tools: { get: "get" } },
    everything: { name: "everything", tools: { get_env: "get-env" } },
  },
  limits: { timeoutMs: 1000, callTimeoutMs: 500, maxToolCalls: 5, maxMemoryMb: 64 },
  ceiling: { read: ["./data"] },
  configDir: "/root-dir",
  cwd: "/root-dir",
};

Deno.test("explainRunError() names the knob of each limit", () => {
  const cases = [
    ["Timeout", /--timeout MS .*exec\.timeoutMs/],
    ["ToolTimeout", /raise exec\.callTimeoutMs \(now 500 ms/],
    ["ToolCallLimitExceeded", /raise exec\.maxToolCalls/],
    ["MemoryLimit", /exec\.maxMemoryMb \(now 64 MB/],
  ] as const;
  for (const [kind, pattern] of cases) {
    assert.match(explainRunError({ kind, message: "stopped" }, context).message, pattern, kind);
  }
});

Deno.test("explainRunError() gives a stopped run the line of its one endless loop", () => {
  const error = explainRunError({ kind: "Timeout", message: "Run exceeded" }, {
    ...context,
    source: "let i = 0;\nwhile (true) i++;",
  });
  assert.equal(error.line, 2);
  assert.match(error.message, /it was still running the loop at line 2/);
});

Deno.test("explainRunError() names a timed-out run's one stall point, and none of several", () => {
  const source = "const a = 1;\nawait new Promise((r) => setTimeout(r, 60_000));\na";
  const waiting = explainRunError({ kind: "Timeout", message: "Run exceeded" }, {
    ...context,
    source,
    stallLines: [2],
  });
  assert.equal(waiting.line, 2);
  assert.match(waiting.message, /\(it was waiting at line 2\)/);
  const unsure = explainRunError({ kind: "Timeout", message: "Run exceeded" }, {
    ...context,
    source: "for (const x of [1]) {}\nawait new Promise((r) => setTimeout(r, 9));",
    stallLines: [1, 2],
  });
  assert.equal(unsure.line, undefined, "two candidates: no guess");
  const called = explainRunError({ kind: "Timeout", message: "Run exceeded", line: 7 }, {
    ...context,
    stallLines: [2],
  });
  assert.equal(called.line, 7, "a line known already (a call in flight) stands");
});

Deno.test("explainRunError() explains a Promise or an object used as the value it is not", () => {
  const explain = (message: string, source: string, line: number) =>
    explainRunError({ kind: "ScriptError", message, line }, {
      ...context,
      source,
      outputFields: (ns, tool) =>
        ns === "memory" && tool === "readGraph"
          ? ["entities: Entity[]", "relations: { from: string; to: string }[]"]
          : null,
    }).message;
  assert.match(
    explain(
      "TypeError: entries.join is not a function",
      "const entries = tools.kv.list();\nentries.join(', ')",
      2,
    ),
    /entries holds a Promise: tools\.kv\.list\(…\) on line 1 is not awaited; add `await`/,
  );
  assert.match(
    explain(
      "TypeError: Cannot read properties of undefined (reading 'filter')",
      "const graph = tools.memory.readGraph();\ngraph.entities.filter((e) => e)",
      2,
    ),
    /graph holds a Promise/,
  );
  assert.match(
    explain(
      "TypeError: graph.map is not a function",
      "const graph = await tools.memory.readGraph();\ngraph.map((e) => e)",
      2,
    ),
    /graph is an object \(what tools\.memory\.readGraph returns\), not an array; its fields: entities: Entity\[\], relations: \{…\}\[\]\. Use the array inside it, e\.g\. graph\.entities\.map\(…\)/,
  );
  assert.match(
    explain(
      "TypeError: hits is not iterable",
      "const hits = await tools.memory.readGraph();\nfor (const h of hits) h;",
      2,
    ),
    /hits is an object .* e\.g\. hits\.entities$/,
  );
  const other = "TypeError: x.map is not a function";
  assert.equal(explain(other, "const x = 1;\nx.map(() => 1)", 2), other, "not a tool's value");
});

Deno.test("explainRunError() answers require() with import and the file tools", () => {
  const explain = (source: string, toolMap = context.toolMap) =>
    explainRunError({ kind: "ScriptError", message: "ReferenceError: require is not defined" }, {
      ...context,
      source,
      toolMap: { ...toolMap, fs: { name: "fs", tools: { read: "read" } } },
    }).message;
  assert.match(
    explain('const fs = require("fs");'),
    /`require` does not exist .*`import … from "node:fs"` .*tools\.fs\.read\(\{ path \}\)/,
  );
  const path = explain('const path = require("path");');
  assert.match(path, /import … from "node:path"/);
  assert.doesNotMatch(explain('const cp = require("child_process");'), /tools\.fs/);
});

Deno.test("explainRunError() finds the line of a thrown string", () => {
  const error = explainRunError({ kind: "ScriptError", message: "Error: Uncaught too big" }, {
    ...context,
    source: 'const a = 1;\nif (a) throw "too big";\nthrow new Error("x");',
  });
  assert.equal(error.line, 2);
  assert.match(error.message, /^Uncaught value thrown: too big; throw new Error/);
});

Deno.test("explainRunError() explains ReferenceErrors models cause", () => {
  const explain = (message: string, source = "") =>
    explainRunError({ kind: "ScriptError", message }, { ...context, source }).message;
  assert.match(explain("ReferenceError: None is not defined"), /writes null, not None/);
  assert.match(explain("ReferenceError: kv is not defined"), /tools\.kv\.TOOL/);
  assert.match(
    explain("ReferenceError: env is not defined", "await tools.everything.get-env()"),
    /tools\.everything\.get_env\(…\) or tools\.everything\["get-env"\]/,
  );
  assert.equal(explain("ReferenceError: zzz is not defined"), "ReferenceError: zzz is not defined");
});

Deno.test("explainRunError() advises the flag only when exec.maxPermissions allows it", () => {
  const denied = (target: string) =>
    explainRunError({
      kind: "PermissionDenied",
      message: `Permission denied: read access to "${target}" is not granted to this run; ` +
        `ask for it with --allow-read=${target} (within exec.maxPermissions)`,
      hint: "read",
    }, context).message;
  assert.match(
    denied("/root-dir/data/a.txt"),
    /ask for it with --allow-read=\/root-dir\/data\/a\.txt/,
  );
  assert.match(denied("./data/a.txt"), /ask for it with --allow-read=\.\/data\/a\.txt/);
  const beyond = denied("/etc/hostname");
  assert.match(beyond, /add "\/etc\/hostname" to exec\.maxPermissions\.read/);
  assert.match(beyond, /allowed: read \.\/data/);
  assert.match(
    explainRunError({ kind: "PermissionRefused", message: "Refused before start" }, context)
      .message,
    /exec\.maxPermissions allows: read \.\/data/,
  );
});

Deno.test("withoutRunPaths() names the script, never the run's scratch directory", () => {
  const run = { scriptPath: "/data/runs-1/ab/script.ts", dir: "/data/runs-1/ab" };
  const parse = withoutRunPaths({
    kind: "ScriptError",
    message:
      "SyntaxError: Invalid regular expression flags at file:///data/runs-1/ab/script.ts:2:17",
  }, run);
  assert.equal(parse.message, "SyntaxError: Invalid regular expression flags at the script:2:17");
  assert.deepEqual(asModuleSyntaxError(parse), {
    kind: "SyntaxError",
    message: "Invalid regular expression flags: fix line 2 of the script",
    line: 2,
    column: 17,
  });
  const relative = withoutRunPaths({
    kind: "PermissionDenied",
    message: 'Permission denied: read access to "/data/runs-1/ab/helper.ts" is not granted',
    hint: "read",
    line: 1,
  }, run);
  assert.equal(relative.kind, "ScriptError");
  assert.match(relative.message, /^Cannot import "\.\/helper\.ts": a snippet has no directory/);
  assert.equal(relative.line, 1);
});

Deno.test("explainRunError() says when exec.maxPermissions.net leaves imports no way in", () => {
  const error = explainRunError({
    kind: "PermissionDenied",
    message: "Permission denied: remote and npm imports are off in the sandbox",
    hint: "import",
  }, context);
  assert.match(error.message, /exec\.maxPermissions\.net allows no host/);
});
