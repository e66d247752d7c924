/**
 * The check behind every committed bundle's freshness test (the runner's, the installed
 * command's): a bundle is generated, so the one committed must be what `deno bundle` makes of
 * its entry now, or the code that runs is not the code that was reviewed.
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Bundles `entry` (repo-relative) the way `task` does, into a scratch file, and fails naming
 * `task` when the committed `bundle` differs.
 */
export async function assertBundleFresh(
  entry: string,
  bundle: string,
  task: string,
): Promise<void> {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
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
        `run \`deno task ${task}\` and commit the result`,
    );
  } finally {
    await Deno.remove(out);
  }
}
