import assert from "node:assert/strict";
import { runtimeDirFor } from "./runtime_dir.ts";

function envOf(values: Record<string, string>): { get(name: string): string | undefined } {
  return { get: (name) => values[name] };
}

Deno.test("runtimeDirFor() makes a private directory per data dir", async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-runtime-" });
  try {
    const a = runtimeDirFor("/data/a", envOf({ XDG_RUNTIME_DIR: base }));
    const b = runtimeDirFor("/data/b", envOf({ XDG_RUNTIME_DIR: base }));
    assert.notEqual(a, b);
    assert.equal(runtimeDirFor("/data/a", envOf({ XDG_RUNTIME_DIR: base })), a);
    assert.equal((Deno.statSync(a).mode ?? 0) & 0o777, 0o700);
    assert.ok(a.length < 80, "short enough for unix socket paths below it");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("runtimeDirFor() refuses a planted symlink in place of its directory", async () => {
  const base = await Deno.makeTempDir({ prefix: "gateway-runtime-" });
  try {
    const elsewhere = await Deno.makeTempDir({ prefix: "gateway-elsewhere-" });
    await Deno.symlink(elsewhere, `${base}/gateway-${Deno.uid()}`);
    assert.throws(
      () => runtimeDirFor("/data/a", envOf({ XDG_RUNTIME_DIR: base })),
      /not a plain directory/,
    );
    await Deno.remove(elsewhere, { recursive: true });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
