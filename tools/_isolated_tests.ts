/**
 * Test support for the bundled tool modules (not a tool module: the leading `_` keeps it out
 * of the catalogue). Their tests change GATEWAY_DATA_DIR, which is process-wide, while
 * `deno test --parallel` runs every test file in one process; so each file re-runs itself in a
 * child process with a marker variable, and registers its real tests only there.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";

const ISOLATED_MARKER = "GATEWAY_TOOLS_TEST_ISOLATED";

/** How one isolated test runs. */
export interface IsolatedTestOptions {
  /** Skip the test (e.g. PostgreSQL not installed). Default: false. */
  ignore?: boolean;
  /**
   * Check for leaked ops and resources. Default: true. Off for tests of a module's PostgreSQL
   * pool, which the module keeps open for the life of its tool host, as it does there.
   */
  sanitize?: boolean;
}

/**
 * Returns the `test` function a tool module's test file registers its tests with. In the
 * parent process it registers one test that runs the file in a child and checks its result.
 */
export function isolatedTests(
  meta: ImportMeta,
  module: string,
): (name: string, fn: () => void | Promise<void>, options?: IsolatedTestOptions) => void {
  const isolated = Deno.env.get(ISOLATED_MARKER) === "1";
  if (!isolated) {
    Deno.test(`${module} tests pass in a process of their own (they change the environment)`, async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["test", "--allow-all", "--no-prompt", "--no-check", meta.filename ?? ""],
        cwd: join(meta.dirname ?? ".", ".."),
        env: { [ISOLATED_MARKER]: "1", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      try {
        const { code, stdout, stderr } = await child.output();
        const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
        assert.equal(code, 0, `isolated run failed:\n${text}`);
        assert.match(text, /ok \| [1-9]\d* passed \| 0 failed/);
        // Only the per-test lines: the child's own summary would read as a second summary.
        console.log(text.trim().split("\n").filter((l) => !/^(ok|FAILED) \|/.test(l)).join("\n"));
      } finally {
        clearTimeout(timer);
        try {
          child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }
    });
  }
  return (name, fn, options = {}) => {
    if (!isolated) return;
    const sanitize = options.sanitize ?? true;
    Deno.test({
      name,
      fn,
      ignore: options.ignore ?? false,
      sanitizeOps: sanitize,
      sanitizeResources: sanitize,
    });
  };
}
