import assert from "node:assert/strict";
import {
  isToolModuleFileName,
  listToolModules,
  ToolDirectoryWatcher,
  type ToolModuleChange,
} from "./tool_directory_watcher.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";

/** Runs `body` with a watcher on `dir` that collects changes, always stopping it. */
async function withWatcher(
  dir: string,
  body: (watcher: ToolDirectoryWatcher, changes: ToolModuleChange[][]) => Promise<void>,
): Promise<void> {
  const changes: ToolModuleChange[][] = [];
  const watcher = new ToolDirectoryWatcher(dir, {
    onChanges: (batch) => changes.push(batch),
    debounceMs: 50,
    pollMs: 50,
    logger: { warn() {} },
  });
  try {
    await body(watcher, changes);
  } finally {
    await watcher.stop();
  }
}

function kinds(batches: ToolModuleChange[][]): string[] {
  return batches.flat().map((c) => `${c.kind} ${c.name}`);
}

Deno.test("isToolModuleFileName() accepts .ts modules but not tests, helpers or declarations", () => {
  assert.equal(isToolModuleFileName("kv.ts"), true);
  assert.equal(isToolModuleFileName("fancy-name.ts"), true);
  for (const name of ["kv_test.ts", "_helpers.ts", ".#kv.ts", "types.d.ts", "kv.js", "kv.tsx"]) {
    assert.equal(isToolModuleFileName(name), false, name);
  }
});

Deno.test("listToolModules() lists modules sorted and is empty for a missing directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const name of ["b.ts", "a.ts", "_private.ts", "a_test.ts", "notes.md"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "");
    }
    await Deno.mkdir(`${dir}/sub.ts`);
    assert.deepEqual(await listToolModules(dir), [
      { name: "a", file: `${dir}/a.ts` },
      { name: "b", file: `${dir}/b.ts` },
    ]);
    assert.deepEqual(await listToolModules(`${dir}/missing`), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ToolDirectoryWatcher reports added, changed and removed modules only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/kv.ts`, "export const a = 1;");
    await withWatcher(dir, async (watcher, changes) => {
      assert.deepEqual(await watcher.start(), [{ name: "kv", file: `${dir}/kv.ts` }]);

      await Deno.writeTextFile(`${dir}/fs.ts`, "export const b = 1;");
      await Deno.writeTextFile(`${dir}/_helper.ts`, "x");
      await Deno.writeTextFile(`${dir}/fs_test.ts`, "x");
      await Deno.writeTextFile(`${dir}/README.md`, "x");
      await pollUntil("change batch 1", () => changes.length >= 1);
      assert.deepEqual(changes[0], [{ kind: "added", name: "fs", file: `${dir}/fs.ts` }]);

      await Deno.writeTextFile(`${dir}/kv.ts`, "export const a = 22;");
      await pollUntil("change batch 2", () => changes.length >= 2);
      assert.deepEqual(changes[1], [{ kind: "changed", name: "kv", file: `${dir}/kv.ts` }]);

      await Deno.remove(`${dir}/fs.ts`);
      await pollUntil("change batch 3", () => changes.length >= 3);
      assert.deepEqual(changes[2], [{ kind: "removed", name: "fs", file: `${dir}/fs.ts` }]);
      // Nothing else was reported: a later write is the next change seen.
      await Deno.writeTextFile(`${dir}/marker.ts`, "export const m = 1;");
      await pollUntil('"added marker"', () => kinds(changes).includes("added marker"));
      assert.deepEqual(kinds(changes), ["added fs", "changed kv", "removed fs", "added marker"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ToolDirectoryWatcher debounces a burst of writes into one change", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withWatcher(dir, async (watcher, changes) => {
      await watcher.start();
      for (let i = 0; i < 10; i++) await Deno.writeTextFile(`${dir}/kv.ts`, `// ${i}`);
      await pollUntil("change batch 1", () => changes.length >= 1);
      // No trailing change from the burst: a later write is the next change seen.
      await Deno.writeTextFile(`${dir}/marker.ts`, "export const m = 1;");
      await pollUntil('"added marker"', () => kinds(changes).includes("added marker"));
      assert.deepEqual(kinds(changes), ["added kv", "added marker"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ToolDirectoryWatcher treats an editor's write-and-rename as a change", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/kv.ts`, "export const a = 1;");
    await withWatcher(dir, async (watcher, changes) => {
      await watcher.start();
      await Deno.writeTextFile(`${dir}/.kv.ts.swp`, "export const a = 123;");
      await Deno.rename(`${dir}/.kv.ts.swp`, `${dir}/kv.ts`);
      await pollUntil("change batch 1", () => changes.length >= 1);
      assert.deepEqual(kinds(changes), ["changed kv"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ToolDirectoryWatcher waits for a missing directory and reports its modules", async () => {
  const root = await Deno.makeTempDir();
  const dir = `${root}/tools`;
  try {
    await withWatcher(dir, async (watcher, changes) => {
      assert.deepEqual(await watcher.start(), []);
      await Deno.mkdir(dir);
      await Deno.writeTextFile(`${dir}/kv.ts`, "export const a = 1;");
      await pollUntil('"added kv"', () => kinds(changes).includes("added kv"));

      await Deno.remove(dir, { recursive: true });
      await pollUntil('"removed kv"', () => kinds(changes).includes("removed kv"));

      await Deno.mkdir(dir);
      await Deno.writeTextFile(`${dir}/fs.ts`, "export const b = 1;");
      await pollUntil('"added fs"', () => kinds(changes).includes("added fs"));
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
