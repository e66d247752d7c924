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

Deno.test("stdinIsEmpty() is true for /dev/null and false for a pipe, which it leaves unread", async () => {
  const probe =
    `import { stdinIsEmpty } from ${
      JSON.stringify(new URL("./fast_exec.ts", import.meta.url).href)
    };\nconst empty = stdinIsEmpty();\n` +
    `console.log(JSON.stringify({ empty, rest: await new Response(Deno.stdin.readable).text() }));`;
  const run = async (stdin: "null" | "piped") => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", probe],
      stdin,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin === "piped") {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("input"));
      await writer.close();
    }
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  assert.deepEqual(await run("null"), { empty: true, rest: "" });
  assert.deepEqual(await run("piped"), { empty: false, rest: "input" });
});
