import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./config_error.ts";
import { parseEnvFile, readEnvFile } from "./env_file.ts";

Deno.test("parseEnvFile() reads NAME=VALUE lines, skipping comments and unquoting values", () => {
  assert.deepEqual(
    parseEnvFile(`# tokens\nA=1\n\n; note\nB = "two words"\nC='x=y'\nD=\n`, "g.env"),
    { A: "1", B: "two words", C: "x=y", D: "" },
  );
});

Deno.test("parseEnvFile() refuses a malformed line, naming the file and line", () => {
  assert.throws(
    () => parseEnvFile("A=1\nexport B=2\n", "/r/gateway.env"),
    (e: unknown) =>
      e instanceof ConfigError &&
      /"\/r\/gateway\.env" at line 2: expected NAME=VALUE/.test(e.message),
  );
});

Deno.test("readEnvFile() warns when others can read the file, and reads nothing when absent", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await readEnvFile(dir), { vars: {}, warnings: [] });
    await Deno.writeTextFile(join(dir, "gateway.env"), "T=1\n", { mode: 0o644 });
    await Deno.chmod(join(dir, "gateway.env"), 0o644);
    const loose = await readEnvFile(dir);
    assert.deepEqual(loose.vars, { T: "1" });
    assert.match(loose.warnings[0] ?? "", /readable by others \(mode 644\): run chmod 600/);
    await Deno.chmod(join(dir, "gateway.env"), 0o600);
    assert.deepEqual((await readEnvFile(dir)).warnings, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
