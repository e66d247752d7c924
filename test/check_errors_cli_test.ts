/**
 * End-to-end: what `gateway exec` prints for a misspelt namespace — the nearest namespaces (not
 * a tool), on the checked and the unchecked path — and a type error's position once.
 * @module
 */

import assert from "node:assert/strict";
import { withHarness } from "./support/gateway_harness.ts";

const GREET = `/** Greets. */
export function greet(args: { name: string }): string {
  return \`hi \${args.name}\`;
}
`;

Deno.test("a misspelt namespace suggests namespaces, and a type error names its line once", async () => {
  await withHarness({ files: { "tools/hello.ts": GREET } }, async (gw) => {
    const checked = await gw.cli(["exec", 'await tools.helo.greet({ name: "x" })']);
    assert.equal(checked.code, 1);
    assert.equal(
      checked.stderr,
      'error[CheckFailed]: Type check failed (1 error); line 1:13: Unknown namespace "helo": ' +
        'did you mean "hello"? the namespaces are: hello (search("words") finds a tool by what it does)\n',
    );
    const unchecked = await gw.cli(["exec", "--no-check", 'await tools.helo.greet({ name: "x" })']);
    assert.equal(unchecked.code, 1);
    assert.match(
      unchecked.stderr,
      /^error\[UnknownTool\]: Unknown namespace "helo": did you mean "hello"\?; the namespaces are: hello/,
    );
  });
});
