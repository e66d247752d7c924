import assert from "node:assert/strict";
import { parseSimpleExec } from "./fast_exec.ts";

Deno.test("parseSimpleExec() takes inline code, the flags it knows, --root and script args", () => {
  assert.deepEqual(
    parseSimpleExec(["--root", "r", "exec", "--no-check", "1 + 1", "--json", "--", "a", "--x"]),
    {
      rootFlag: "r",
      source: "1 + 1",
      json: true,
      check: false,
      noStdin: false,
      args: ["a", "--x"],
    },
  );
  assert.deepEqual(parseSimpleExec(["exec", "2", "--root=q", "--no-stdin"]), {
    rootFlag: "q",
    source: "2",
    json: false,
    check: undefined,
    noStdin: true,
    args: [],
  });
});

Deno.test("parseSimpleExec() leaves everything else to the full CLI", () => {
  for (
    const argv of [
      ["run", "x.ts"],
      ["exec"],
      ["exec", "-"],
      ["exec", "script.ts"],
      ["exec", "1", "2"],
      ["exec", "1", "--timeout", "5"],
      ["exec", "1", "--allow-net"],
      ["exec", "1", "--help"],
      ["--root"],
      ["--version"],
    ]
  ) assert.equal(parseSimpleExec(argv), null, argv.join(" "));
});
