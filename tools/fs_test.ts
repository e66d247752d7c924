import assert from "node:assert/strict";
import { join, relative } from "node:path";
import * as fs from "./fs.ts";
import { isolatedTests } from "./_isolated_tests.ts";

const test = isolatedTests(import.meta, "fs");

/**
 * Runs `body` with GATEWAY_DATA_DIR set to a fresh temp dir and GATEWAY_TOOL_SETTINGS to
 * `settings` (absent when undefined); restores both variables after.
 */
async function withDataDir(
  body: (dir: string) => void | Promise<void>,
  settings?: (dir: string) => unknown,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "gateway-fs-test-" }));
  const previous = {
    data: Deno.env.get("GATEWAY_DATA_DIR"),
    settings: Deno.env.get("GATEWAY_TOOL_SETTINGS"),
  };
  Deno.env.set("GATEWAY_DATA_DIR", dir);
  if (settings === undefined) Deno.env.delete("GATEWAY_TOOL_SETTINGS");
  else Deno.env.set("GATEWAY_TOOL_SETTINGS", JSON.stringify(settings(dir)));
  try {
    await body(dir);
  } finally {
    for (
      const [name, value] of [["GATEWAY_DATA_DIR", previous.data], [
        "GATEWAY_TOOL_SETTINGS",
        previous.settings,
      ]]
    ) {
      if (value === undefined) Deno.env.delete(name as string);
      else Deno.env.set(name as string, value);
    }
    await Deno.remove(dir, { recursive: true });
  }
}

test("fs module exports only tools: functions of at most one parameter", () => {
  const exported = Object.entries(fs);
  assert.deepEqual(exported.map(([name]) => name).sort(), ["list", "read", "stat", "write"]);
  for (const [name, value] of exported) {
    assert.equal(typeof value, "function", name);
    assert.ok((value as (...a: unknown[]) => unknown).length <= 1, name);
  }
});

test("write() creates the default root and parent dirs; read() returns the text", async () => {
  await withDataDir(async (dir) => {
    const result = await fs.write({ path: "notes/today/a.txt", content: "héllo 😀" });
    assert.deepEqual(result, {
      path: join(dir, "files", "notes", "today", "a.txt"),
      bytes: 11,
      created: true,
    });
    assert.equal(await Deno.readTextFile(join(dir, "files/notes/today/a.txt")), "héllo 😀");
    assert.equal(await fs.read({ path: "notes/today/a.txt" }), "héllo 😀");
    assert.equal(await fs.read({ path: join(dir, "files/notes/today/a.txt") }), "héllo 😀");
  });
});

test("write() replaces by default and appends when asked, reporting created false", async () => {
  await withDataDir(async () => {
    await fs.write({ path: "log.txt", content: "one\n" });
    assert.equal(
      (await fs.write({ path: "log.txt", content: "two\n", append: true })).created,
      false,
    );
    assert.equal(await fs.read({ path: "log.txt" }), "one\ntwo\n");
    await fs.write({ path: "log.txt", content: "fresh" });
    assert.equal(await fs.read({ path: "log.txt" }), "fresh");
  });
});

test("list() returns entries sorted by name with their types; the first root by default", async () => {
  await withDataDir(async (dir) => {
    await fs.write({ path: "b.txt", content: "" });
    await fs.write({ path: "a/inner.txt", content: "" });
    await Deno.symlink(join(dir, "files", "b.txt"), join(dir, "files", "c-link"));
    assert.deepEqual(await fs.list(), [
      { name: "a", type: "directory" },
      { name: "b.txt", type: "file" },
      { name: "c-link", type: "symlink" },
    ]);
    assert.deepEqual(await fs.list({ path: "a" }), [{ name: "inner.txt", type: "file" }]);
    await assert.rejects(
      fs.list({ path: "b.txt" }),
      /Cannot list path "b.txt": it is not a directory/,
    );
  });
});

test("stat() describes files, directories and symlinks inside the roots", async () => {
  await withDataDir(async (dir) => {
    await fs.write({ path: "d/f.txt", content: "12345" });
    await Deno.symlink(join(dir, "files", "d", "f.txt"), join(dir, "files", "link"));
    const file = await fs.stat({ path: "d/f.txt" });
    assert.equal(file.type, "file");
    assert.equal(file.size, 5);
    assert.equal(file.symlink, false);
    assert.ok(file.modified !== null && !Number.isNaN(Date.parse(file.modified)));
    assert.equal((await fs.stat({ path: "d" })).type, "directory");
    const link = await fs.stat({ path: "link" });
    assert.deepEqual([link.type, link.symlink, link.path], [
      "file",
      true,
      join(dir, "files", "d", "f.txt"),
    ]);
    await assert.rejects(
      fs.stat({ path: "nope" }),
      /Cannot stat path "nope": no such file or directory/,
    );
  });
});

test("fs tools refuse paths that escape the roots by .. or by being absolute elsewhere", async () => {
  await withDataDir(async (dir) => {
    const roots = `"${join(dir, "files")}"`;
    await assert.rejects(
      fs.read({ path: "../kv.db" }),
      new RegExp(`Cannot read path "\\.\\./kv\\.db": it is outside the allowed roots ${roots}`),
    );
    await assert.rejects(
      fs.read({ path: "/etc/passwd" }),
      /Cannot read path "\/etc\/passwd": it is outside the allowed roots/,
    );
    await assert.rejects(
      fs.write({ path: "a/../../escape.txt", content: "x" }),
      /outside the allowed roots/,
    );
    await assert.rejects(fs.list({ path: ".." }), /Cannot list path "\.\.": it is outside/);
    await assert.rejects(fs.stat({ path: `${dir}/files-other/x` }), /outside the allowed roots/);
    await assert.rejects(fs.write({ path: join(dir, "escape.txt"), content: "x" }), /outside/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["files"]);
    // `..` that stays inside is fine.
    await fs.write({ path: "a/../inside.txt", content: "ok" });
    assert.equal(await fs.read({ path: "inside.txt" }), "ok");
  });
});

test("fs tools refuse a symlink to /etc inside the root, for every tool", async () => {
  await withDataDir(async (dir) => {
    await Deno.mkdir(join(dir, "files"), { recursive: true });
    await Deno.symlink("/etc", join(dir, "files", "etc-link"));
    await Deno.symlink("/etc/passwd", join(dir, "files", "passwd-link"));
    await assert.rejects(
      fs.read({ path: "etc-link/passwd" }),
      /Cannot read path "etc-link\/passwd": it resolves to "\/etc\/passwd", outside the allowed roots/,
    );
    await assert.rejects(fs.read({ path: "passwd-link" }), /resolves to "\/etc\/passwd"/);
    await assert.rejects(
      fs.list({ path: "etc-link" }),
      /Cannot list path "etc-link": it resolves to "\/etc"/,
    );
    await assert.rejects(fs.stat({ path: "passwd-link" }), /resolves to "\/etc\/passwd"/);
    await assert.rejects(
      fs.write({ path: "etc-link/new-file", content: "x" }),
      /resolves to "\/etc\/new-file"/,
    );
    // Listing the root shows the link without following it.
    assert.deepEqual((await fs.list()).map((e) => e.type), ["symlink", "symlink"]);
  });
});

test("write() checks the nearest existing ancestor, so nothing is created outside via a symlink", async () => {
  await withDataDir(async (dir) => {
    const outside = join(dir, "outside");
    await Deno.mkdir(outside);
    await Deno.mkdir(join(dir, "files"));
    await Deno.symlink(outside, join(dir, "files", "out"));
    await Deno.symlink(join(outside, "dangling.txt"), join(dir, "files", "dangling"));
    await assert.rejects(
      fs.write({ path: "out/deep/new/file.txt", content: "x" }),
      /resolves to ".*outside\/deep\/new\/file\.txt"/,
    );
    await assert.rejects(
      fs.write({ path: "dangling", content: "x" }),
      /Cannot write path "dangling": ".*dangling" is a symlink that does not resolve/,
    );
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  });
});

test("fs tools follow symlinks that stay inside the roots", async () => {
  await withDataDir(async (dir) => {
    await fs.write({ path: "real/data.txt", content: "inside" });
    await Deno.symlink(join(dir, "files", "real"), join(dir, "files", "alias"));
    assert.equal(await fs.read({ path: "alias/data.txt" }), "inside");
    assert.equal(
      (await fs.write({ path: "alias/more.txt", content: "m" })).path,
      join(dir, "files", "real", "more.txt"),
    );
  });
});

test("fs tools use settings.roots: relative paths go to the first root, absolute ones may use any", async () => {
  const cwdRoot = await Deno.makeTempDir({ dir: Deno.cwd(), prefix: ".gateway-test-fs-" });
  try {
    await withDataDir(async (dir) => {
      await fs.write({ path: "one.txt", content: "1" });
      assert.ok((await Deno.readTextFile(join(cwdRoot, "one.txt"))) === "1");
      await fs.write({ path: join(dir, "second", "two.txt"), content: "2" });
      assert.equal(await fs.read({ path: join(dir, "second", "two.txt") }), "2");
      await assert.rejects(
        fs.read({ path: join(dir, "files", "x") }),
        new RegExp(`outside the allowed roots "${cwdRoot}", "${join(dir, "second")}"`),
      );
    }, (dir) => {
      Deno.mkdirSync(join(dir, "second"));
      return { roots: [relative(Deno.cwd(), cwdRoot), join(dir, "second")] };
    });
  } finally {
    await Deno.remove(cwdRoot, { recursive: true });
  }
});

test("fs tools refuse bad settings with a clear error", async () => {
  await withDataDir(async () => {
    await assert.rejects(
      fs.list(),
      /GATEWAY_TOOL_SETTINGS has unknown key "root" \(expected "roots", "maxReadBytes"\)/,
    );
  }, () => ({ root: "/" }));
  await withDataDir(async () => {
    await assert.rejects(fs.list(), /"roots" must be a non-empty array of directory paths/);
  }, () => ({ roots: [] }));
  await withDataDir(async (dir) => {
    await assert.rejects(fs.list(), new RegExp(`Cannot use fs root "${join(dir, "missing")}"`));
  }, (dir) => ({ roots: [join(dir, "missing")] }));
  await withDataDir(async () => {
    Deno.env.set("GATEWAY_TOOL_SETTINGS", "{roots:");
    await assert.rejects(fs.list(), /GATEWAY_TOOL_SETTINGS is not valid JSON/);
  });
});

test("read() refuses directories, missing files, files over maxReadBytes and non-UTF-8", async () => {
  await withDataDir(async (dir) => {
    await fs.write({ path: "big.txt", content: "x".repeat(11) });
    await Deno.mkdir(join(dir, "files", "sub"));
    await Deno.writeFile(join(dir, "files", "bin"), new Uint8Array([0xff, 0xfe, 0x00]));
    await assert.rejects(
      fs.read({ path: "sub" }),
      /Cannot read path "sub": it is a directory; use fs\.list/,
    );
    await assert.rejects(
      fs.read({ path: "none.txt" }),
      /Cannot read path "none.txt": no such file or directory/,
    );
    await assert.rejects(
      fs.read({ path: "big.txt" }),
      /it has 11 bytes, more than maxReadBytes 10/,
    );
    await assert.rejects(fs.read({ path: "bin" }), /Cannot read path "bin": it is not UTF-8 text/);
    await assert.rejects(
      fs.write({ path: "sub", content: "x" }),
      /Cannot write path "sub": it is a directory/,
    );
  }, () => ({ maxReadBytes: 10 }));
});

test("fs tools refuse bad arguments with clear errors", async () => {
  await withDataDir(async () => {
    await assert.rejects(fs.read({ path: "" }), /fs\.read: "path" must be a non-empty string/);
    await assert.rejects(fs.read({ path: "a\0b" }), /fs\.read: "path" contains a NUL character/);
    await assert.rejects(
      fs.write({ path: "a", content: 5 } as unknown as fs.WriteArgs),
      /"content" must be a string/,
    );
    await assert.rejects(
      fs.write({ path: "a", content: "", append: "yes" } as unknown as fs.WriteArgs),
      /"append" must be a boolean/,
    );
    await assert.rejects(
      fs.stat({ file: "a" } as unknown as fs.StatArgs),
      /fs\.stat: unknown property "file" \(expected "path"\)/,
    );
  });
});

test("fs tools need GATEWAY_DATA_DIR only for the default root", async () => {
  await withDataDir(async () => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    await assert.rejects(fs.list(), /Cannot find the default fs root: GATEWAY_DATA_DIR is not set/);
  });
  await withDataDir(async (dir) => {
    Deno.env.delete("GATEWAY_DATA_DIR");
    await fs.write({ path: "x.txt", content: "y" });
    assert.equal(await Deno.readTextFile(join(dir, "x.txt")), "y");
  }, (dir) => ({ roots: [dir] }));
});

test("read() of a missing file lists what its directory holds, the nearest names first", async () => {
  await withDataDir(async () => {
    await fs.write({ path: "notes/hello.txt", content: "hi" });
    await fs.write({ path: "notes/zebra.txt", content: "z" });
    await assert.rejects(
      () => fs.read({ path: "notes/hello.md" }),
      /Cannot read path "notes\/hello\.md": no such file or directory \(its directory holds: "hello\.txt", "zebra\.txt"\)/,
    );
  });
});
