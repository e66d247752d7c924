import { fileURLToPath } from "node:url";
import { namespaceContract } from "../../../test/support/namespace_contract.ts";
import { LocalNamespace } from "./local_namespace.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);
const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

namespaceContract({
  name: "local",
  async make(upstream) {
    const root = await Deno.makeTempDir({ prefix: "gateway-local-contract-" });
    const source = upstream === "failing" ? "throws_at_import.ts" : "faulty_tools.ts";
    const file = `${root}/tools/faulty.ts`;
    await Deno.mkdir(`${root}/tools`);
    await Deno.copyFile(fileURLToPath(new URL(source, FIXTURES)), file);
    const namespace = new LocalNamespace("faulty", {
      file,
      config: { settings: {}, disabled: upstream === "disabled" },
      dataDir: root,
      cacheDir: `${root}/cache`,
      logger: QUIET,
      loadTimeoutMs: 10_000,
      abortGraceMs: 2_000,
      killGraceMs: 500,
    });
    return {
      namespace,
      call: { tool: "echo", args: { value: 1 } },
      slowCall: { tool: "waitForAbort", args: {} },
      async changeTools() {
        const added =
          '\n/** Added by the contract. */\nexport function added(): string {\n  return "added";\n}\n';
        await Deno.writeTextFile(file, added, { append: true });
        await namespace.reload();
      },
      close: () => Deno.remove(root, { recursive: true }),
    };
  },
});
