import { fileURLToPath } from "node:url";
import { namespaceContract, type Upstream } from "../../../test/support/namespace_contract.ts";
import { LocalNamespace } from "./local_namespace.ts";
import { SharedToolHosts } from "./shared_tool_host.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);
const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A tool module namespace over the fixture that works or throws at import. `shared`: run it as
 * a Worker of a shared tool host (what the server does unless a module asks for isolation)
 * instead of a process of its own.
 */
async function localSubject(upstream: Upstream, shared: boolean) {
  const root = await Deno.makeTempDir({ prefix: "gateway-local-contract-" });
  const source = upstream === "failing" ? "throws_at_import.ts" : "faulty_tools.ts";
  const file = `${root}/tools/faulty.ts`;
  await Deno.mkdir(`${root}/tools`);
  await Deno.copyFile(fileURLToPath(new URL(source, FIXTURES)), file);
  const hosts = shared ? new SharedToolHosts({ logger: QUIET, killGraceMs: 500 }) : undefined;
  const namespace = new LocalNamespace("faulty", {
    file,
    config: { settings: {}, disabled: upstream === "disabled" },
    dataDir: root,
    cacheDir: `${root}/cache`,
    logger: QUIET,
    loadTimeoutMs: 10_000,
    abortGraceMs: 2_000,
    killGraceMs: 500,
    ...(hosts === undefined ? {} : { shared: hosts }),
  });
  return {
    namespace,
    call: { tool: "echo", args: { value: 1 } },
    slowCall: { tool: "waitForAbort", args: {} },
    capabilities: [],
    async changeTools() {
      const added =
        '\n/** Added by the contract. */\nexport function added(): string {\n  return "added";\n}\n';
      await Deno.writeTextFile(file, added, { append: true });
      await namespace.reload();
    },
    async close() {
      await hosts?.stop();
      await Deno.remove(root, { recursive: true });
    },
  };
}

namespaceContract({
  name: "local (a process of its own)",
  make: (upstream) => localSubject(upstream, false),
});

namespaceContract({
  name: "local (a Worker of the shared tool host)",
  make: (upstream) => localSubject(upstream, true),
});
