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
  assert.match(error.message, /the loop at line 2 never ends/);
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
