import assert from "node:assert/strict";
import { ToolModuleSignatures } from "./tool_module_signatures.ts";
import { ToolModuleLoadError } from "./tool_module_load_error.ts";

const FIXTURES = new URL("../../../test/fixtures/tool_modules/", import.meta.url);

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

Deno.test("extract() reads signatures in a worker and reuses the memory cache", async () => {
  const cacheDir = await Deno.makeTempDir();
  const signatures = new ToolModuleSignatures({ cacheDir });
  try {
    const started = performance.now();
    const first = await signatures.extract("tools/inventory.ts", fixture("inventory.ts"));
    const cold = performance.now() - started;
    const again = performance.now();
    const second = await signatures.extract("tools/inventory.ts", fixture("inventory.ts"));
    const warm = performance.now() - again;
    console.log(
      `signature extraction: cold ${cold.toFixed(0)} ms, memory hit ${warm.toFixed(2)} ms`,
    );
    assert.deepEqual(second, first);
    assert.equal(first.tools.length, 6);
    assert.match(first.declarations, /export interface Item/);
    assert.deepEqual(signatures.stats(), {
      memoryHits: 1,
      diskHits: 0,
      extractions: 1,
      workerStarts: 1,
    });
  } finally {
    signatures.close();
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("extract() answers from the disk cache without starting the worker after a restart", async () => {
  const cacheDir = await Deno.makeTempDir();
  try {
    const first = new ToolModuleSignatures({ cacheDir });
    let expected;
    try {
      expected = await first.extract("tools/inventory.ts", fixture("inventory.ts"));
    } finally {
      first.close();
    }
    const restarted = new ToolModuleSignatures({ cacheDir });
    try {
      const started = performance.now();
      const cached = await restarted.extract("tools/inventory.ts", fixture("inventory.ts"));
      console.log(`signature extraction: disk hit ${(performance.now() - started).toFixed(2)} ms`);
      assert.deepEqual(cached, expected);
      assert.deepEqual(restarted.stats(), {
        memoryHits: 0,
        diskHits: 1,
        extractions: 0,
        workerStarts: 0,
      });
    } finally {
      restarted.close();
    }
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("extract() rejects with the file, line and reason, and caches the failure", async () => {
  const cacheDir = await Deno.makeTempDir();
  const signatures = new ToolModuleSignatures({ cacheDir });
  try {
    for (let round = 0; round < 2; round++) {
      const error = await signatures.extract("tools/two_params.ts", fixture("two_params.ts"))
        .then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ToolModuleLoadError);
      assert.equal(
        error.message,
        `Cannot load tool module "tools/two_params.ts": export "add" takes 2 parameters (line 9)`,
      );
      assert.equal(error.line, 9);
    }
    const syntax = await signatures.extract("tools/broken.ts", fixture("syntax_error.txt"))
      .then(() => undefined, (e: unknown) => e);
    assert.ok(syntax instanceof ToolModuleLoadError);
    assert.equal(
      syntax.message,
      `Cannot load tool module "tools/broken.ts": syntax error: Expression expected (line 4)`,
    );
    assert.deepEqual(signatures.stats(), {
      memoryHits: 1,
      diskHits: 0,
      extractions: 2,
      workerStarts: 1,
    });
  } finally {
    signatures.close();
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("extract() ignores a corrupt disk entry and extracts again", async () => {
  const cacheDir = await Deno.makeTempDir();
  try {
    const first = new ToolModuleSignatures({ cacheDir });
    try {
      await first.extract("tools/two_params.ts", "export const ok = () => 1;");
    } finally {
      first.close();
    }
    for await (const entry of Deno.readDir(cacheDir)) {
      await Deno.writeTextFile(`${cacheDir}/${entry.name}`, "{not json");
    }
    const second = new ToolModuleSignatures({ cacheDir });
    try {
      const result = await second.extract("tools/x.ts", "export const ok = () => 1;");
      assert.deepEqual(result.tools.map((t) => t.descriptor.originalName), ["ok"]);
      assert.equal(second.stats().extractions, 1);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("extract() keeps the event loop free while the worker extracts", async () => {
  const signatures = new ToolModuleSignatures();
  try {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    try {
      await signatures.extract("tools/faulty_tools.ts", fixture("faulty_tools.ts"));
    } finally {
      clearInterval(interval);
    }
    // A cold extraction takes hundreds of milliseconds; timers kept firing meanwhile.
    assert.ok(ticks >= 5, `only ${ticks} timer ticks during extraction`);
  } finally {
    signatures.close();
  }
});

Deno.test("extract() shares one extraction between concurrent requests for the same text", async () => {
  const signatures = new ToolModuleSignatures();
  try {
    const text = fixture("inventory.ts");
    const [a, b] = await Promise.all([
      signatures.extract("tools/a.ts", text),
      signatures.extract("tools/b.ts", text),
    ]);
    assert.deepEqual(a, b);
    assert.equal(signatures.stats().extractions, 1);
  } finally {
    signatures.close();
  }
});

Deno.test("extract() fails after close() instead of starting a worker", async () => {
  const signatures = new ToolModuleSignatures();
  signatures.close();
  await assert.rejects(
    signatures.extract("tools/x.ts", "export const ok = () => 1;"),
    /the extractor was closed/,
  );
  assert.equal(signatures.stats().workerStarts, 0);
});
