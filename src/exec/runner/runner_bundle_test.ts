import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RUNNER_DISCOVERY, RUNNER_MAIN } from "../runner_process.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

for (
  const [entry, bundle] of [
    ["src/exec/runner/runner_main.ts", RUNNER_MAIN],
    ["src/exec/runner/runner_discovery.ts", RUNNER_DISCOVERY],
  ] as const
) {
  Deno.test(`the runner's bundle of ${entry} is built from its current sources`, async () => {
    const out = await Deno.makeTempFile({ suffix: ".js" });
    try {
      // The same command as `deno task bundle:runner`, into a scratch file.
      const built = await new Deno.Command(Deno.execPath(), {
        args: ["bundle", "--no-config", "--quiet", "-o", out, entry],
        cwd: REPO,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
      const fresh = await Deno.readTextFile(out);
      const committed = await Deno.readTextFile(bundle);
      assert.ok(
        fresh === committed,
        `${bundle} is out of date with ${entry} and its imports: ` +
          "run `deno task bundle:runner` and commit the result",
      );
    } finally {
      await Deno.remove(out);
    }
  });
}

Deno.test("the runner's main bundle leaves the discovery code to its own bundle", async () => {
  const main = await Deno.readTextFile(RUNNER_MAIN);
  assert.ok(!main.includes("DiscoveryReader = class"), "DiscoveryReader is not in the main bundle");
  assert.ok((await Deno.readTextFile(RUNNER_DISCOVERY)).includes("DiscoveryReader = class"));
});
