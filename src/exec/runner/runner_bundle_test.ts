import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RUNNER_MAIN } from "../runner_process.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

Deno.test("the runner's bundle is built from the runner's current sources", async () => {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    // The same command as `deno task bundle:runner`, into a scratch file.
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--no-config", "--quiet", "-o", out, "src/exec/runner/runner_main.ts"],
      cwd: REPO,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    const fresh = await Deno.readTextFile(out);
    const committed = await Deno.readTextFile(RUNNER_MAIN);
    assert.ok(
      fresh === committed,
      `${RUNNER_MAIN} is out of date with src/exec/runner/runner_main.ts and its imports: ` +
        "run `deno task bundle:runner` and commit the result",
    );
  } finally {
    await Deno.remove(out);
  }
});
