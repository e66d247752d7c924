import assert from "node:assert/strict";
import {
  denoLibTypesPath,
  loadDenoLibTypes,
  toCheckerDeclarations,
  withoutUnstable,
} from "./deno_lib_types.ts";

Deno.test("loadDenoLibTypes() runs `deno types` once and caches it keyed by the Deno version", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-deno-types-" });
  try {
    const nested = `${cacheDir}/caches/checker`;
    const text = await loadDenoLibTypes({ cacheDir: nested });
    assert.match(text, /declare namespace Deno/);
    const path = denoLibTypesPath(nested, Deno.version.deno);
    assert.ok(path.endsWith(`/deno-types-${Deno.version.deno}.d.ts`));
    assert.equal(await Deno.readTextFile(path), text);
    assert.deepEqual(
      [...Deno.readDirSync(nested)].map((entry) => entry.name),
      [`deno-types-${Deno.version.deno}.d.ts`],
    );

    // A cache hit never runs the binary: a path that cannot run still works.
    const cached = await loadDenoLibTypes({
      cacheDir: nested,
      denoPath: `${cacheDir}/no-such-deno`,
    });
    assert.equal(cached, text);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("loadDenoLibTypes() regenerates a cache file that holds no declarations", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-deno-types-" });
  try {
    const path = denoLibTypesPath(cacheDir, "9.9.9-test");
    await Deno.writeTextFile(path, "truncated garbage");
    const text = await loadDenoLibTypes({ cacheDir, denoVersion: "9.9.9-test" });
    assert.match(text, /declare namespace Deno/);
    assert.equal(await Deno.readTextFile(path), text);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("loadDenoLibTypes() names the binary when `deno types` cannot run", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "gateway-deno-types-" });
  try {
    const denoPath = `${cacheDir}/no-such-deno`;
    await assert.rejects(
      () => loadDenoLibTypes({ cacheDir, denoPath, denoVersion: "0.0.0-missing" }),
      (error: unknown) =>
        error instanceof Error &&
        error.message ===
          `Cannot obtain Deno type declarations: running "${denoPath} types" failed`,
    );
    const failing = `${cacheDir}/failing-deno.sh`;
    await Deno.writeTextFile(failing, "#!/bin/sh\necho 'boom' >&2\nexit 3\n");
    await Deno.chmod(failing, 0o755);
    await assert.rejects(
      () => loadDenoLibTypes({ cacheDir, denoPath: failing, denoVersion: "0.0.0-failing" }),
      (error: unknown) =>
        error instanceof Error &&
        error.message ===
          `Cannot obtain Deno type declarations: "${failing} types" exited with code 3: boom`,
    );
    assert.deepEqual(
      [...Deno.readDirSync(cacheDir)].map((entry) => entry.name).sort(),
      ["failing-deno.sh"],
    );
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("toCheckerDeclarations() blanks Deno-only lib references and keeps line numbers", () => {
  const raw = [
    '/// <reference no-default-lib="true" />',
    '/// <reference lib="esnext" />',
    '/// <reference lib="deno.net" />',
    '  /// <reference lib="node" />',
    "declare namespace Deno {}",
  ].join("\n");
  const lines = toCheckerDeclarations(raw).split("\n");
  assert.deepEqual(lines.slice(0, 5), [
    '/// <reference no-default-lib="true" />',
    '/// <reference lib="esnext" />',
    "",
    "",
    "declare namespace Deno {}",
  ]);
  const appended = lines.slice(5).join("\n");
  assert.match(appended, /declare function setTimeout/);
  assert.match(appended, /declare var process: any;/);
});

Deno.test("withoutUnstable() drops lib.deno.unstable and keeps every other lib of `deno types`", async () => {
  const cacheDir = await Deno.makeTempDir();
  try {
    const full = await loadDenoLibTypes({ cacheDir });
    const stable = withoutUnstable(full);
    assert.ok(stable.length < full.length);
    // Unstable APIs a runner (started without `--unstable-*`) does not have are gone…
    for (const unstable of ["openKv(", "export namespace bundle", "export function cron("]) {
      assert.ok(full.includes(unstable), `deno types declares ${unstable}`);
      assert.ok(!stable.includes(unstable), `${unstable} is dropped`);
    }
    // …while the runtime namespace, the shared globals and the window lib stay.
    for (const kept of ["declare var console: Console;", "readTextFile(", "interface Window"]) {
      assert.ok(stable.includes(kept), `${kept} is kept`);
    }
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});
