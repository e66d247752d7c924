import assert from "node:assert/strict";
import { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { COMMANDS } from "./commands.ts";
import { HelpRequested } from "./help_requested.ts";
import { UsageError } from "./usage_error.ts";

Deno.test("parseCommandArgs() throws HelpRequested with the usage when --help parses", () => {
  assert.throws(
    () => parseCommandArgs(["--json", "--help"], { booleans: ["json"] }, "Usage: gateway x"),
    (error: unknown) => error instanceof HelpRequested && error.usage === "Usage: gateway x",
  );
});

Deno.test("parseCommandArgs() reports a bad flag as a usage error even beside --help", () => {
  assert.throws(
    () => parseCommandArgs(["--help", "--bogus"], {}, "Usage: gateway x"),
    (error: unknown) => error instanceof UsageError && /--bogus/.test(error.message),
  );
});

Deno.test("every command of the table answers --help on stdout with exit code 0", async () => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    const out: string[] = [];
    const err: string[] = [];
    const context = new CliContext({
      cwd: "/nonexistent",
      env: {},
      output: { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false },
    });
    const code = await (await command.load())(["--help"], context);
    assert.equal(code, 0, name);
    assert.match(out.join(""), new RegExp(`Usage: gateway ${name}\\b`), name);
    assert.deepEqual(err, [], name);
  }
});
