/**
 * End-to-end: the CLI's edge without a server. Unknown commands and flags are usage errors
 * (exit 2, one line with the nearest right spelling and where the usage is), every command answers `--help` (exit 0), `--version` prints the
 * version, and none of these starts a server.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { COMMANDS } from "../src/cli/commands.ts";

Deno.test("the CLI answers usage mistakes with exit 2 and --help with exit 0, starting no server", async (t) => {
  await withHarness({ files: { "gateway.json": '{ "port": 0 }\n' } }, async (gw) => {
    const cli = (args: string[]) => gw.cli(["--no-autostart", ...args]);

    await t.step("an unknown command is exit 2, one line naming the nearest command", async () => {
      const result = await cli(["frobnicate"]);
      assert.equal(result.code, 2);
      assert.equal(
        result.stderr,
        'error[Usage]: Unknown command "frobnicate" (see gateway --help)\n',
      );
      assert.equal(result.stdout, "");
      const typo = await cli(["exce", "1 + 1"]);
      assert.equal(typo.code, 2);
      assert.equal(
        typo.stderr,
        'error[Usage]: Unknown command "exce": did you mean "exec"? (see gateway --help)\n',
      );
      const two = await cli(["stat"]);
      assert.match(two.stderr, /did you mean "start" or "status"\?/);
    });

    await t.step("an unknown global option is exit 2, with the nearest", async () => {
      const result = await cli(["--frobnicate"]);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /Unknown option "--frobnicate"/);
      const typo = await cli(["--verison"]);
      assert.equal(
        typo.stderr,
        'error[Usage]: Unknown option "--verison": did you mean "--version"? (see gateway --help)\n',
      );
    });

    await t.step(
      "an unknown flag of a command is exit 2, one line with the nearest flag",
      async () => {
        for (const command of ["exec", "tools"]) {
          const result = await cli([command, "--frobnicate", "x"]);
          assert.equal(result.code, 2, `${command}: ${result.stderr}`);
          assert.equal(
            result.stderr,
            `error[Usage]: Unknown option "--frobnicate" (see gateway ${command} --help)\n`,
          );
        }
        for (
          const [args, meant] of [
            [["exec", "--jsn", "1"], "--json"],
            [["exec", "--allow-nett", "1"], "--allow-net"],
            [["history", "--faild"], "--failed"],
          ] as const
        ) {
          const result = await cli([...args]);
          assert.equal(result.code, 2);
          assert.equal(
            result.stderr,
            `error[Usage]: Unknown option "${args[1]}": did you mean "${meant}"? (see gateway ${
              args[0]
            } --help)\n`,
          );
        }
        const timeout = await cli(["exec", "--timeout", "soon", "1"]);
        assert.equal(timeout.code, 2);
        assert.match(timeout.stderr, /--timeout takes a whole number, not "soon"/);
      },
    );

    await t.step("no command prints the usage and exits 2; help and --help exit 0", async () => {
      const none = await cli([]);
      assert.equal(none.code, 2);
      assert.match(none.stdout, /Commands:/);
      for (const args of [["help"], ["--help"], ["-h"]]) {
        const result = await cli(args);
        assert.equal(result.code, 0, args.join(" "));
        assert.match(result.stdout, /Usage: gateway <command>/);
        for (const name of Object.keys(COMMANDS)) {
          assert.match(result.stdout, new RegExp(`\\b${name}\\b`));
        }
      }
    });

    await t.step("every command answers --help with its usage and exit 0", async () => {
      const names = Object.keys(COMMANDS);
      // Two at a time: the machine has two cores.
      for (let i = 0; i < names.length; i += 2) {
        await Promise.all(
          names.slice(i, i + 2).map(async (name) => {
            const result = await cli([name, "--help"]);
            assert.equal(result.code, 0, `gateway ${name} --help: ${result.stderr}`);
            assert.match(
              result.stdout,
              new RegExp(`Usage: gateway ${name}\\b`),
              `gateway ${name} --help`,
            );
          }),
        );
      }
    });

    await t.step("--version prints the version", async () => {
      const result = await cli(["--version"]);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /^gateway \d+\.\d+\.\d+ \(deno \d+\.\d+\.\d+\)\n$/);
    });

    await t.step(
      "with --no-autostart and no server, a command says so and exits non-zero",
      async () => {
        const result = await cli(["exec", "1"]);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^error\[Server\]: No gateway is running for data dir/);
      },
    );

    await assert.rejects(Deno.stat(join(gw.dataDir, "server.json")), Deno.errors.NotFound);
  });
});
