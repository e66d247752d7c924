import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./config_error.ts";
import { assertSafeRoot, isOptedIn, safeRootsFile, unsafeReason } from "./root_safety.ts";

const me = { uid: 1000, gid: 1000 };

Deno.test("unsafeReason() accepts the user's own and root's files, refuses others' and those others can write", () => {
  assert.equal(unsafeReason({ uid: 1000, gid: 1000, mode: 0o40755 }, me), null);
  assert.equal(unsafeReason({ uid: 0, gid: 0, mode: 0o100644 }, me), null);
  // A group-writable file of the user's own primary group (user-private groups) is theirs.
  assert.equal(unsafeReason({ uid: 1000, gid: 1000, mode: 0o40775 }, me), null);
  assert.equal(
    unsafeReason({ uid: 65534, gid: 65534, mode: 0o40755 }, me),
    "belongs to uid 65534, not to you (uid 1000)",
  );
  assert.equal(
    unsafeReason({ uid: 1000, gid: 1000, mode: 0o41777 }, me),
    "is writable by every user (mode 1777)",
  );
  assert.equal(
    unsafeReason({ uid: 1000, gid: 50, mode: 0o100664 }, me),
    "is writable by group 50 (mode 0664)",
  );
  assert.equal(unsafeReason({ uid: null, gid: null, mode: null }, me), null);
});

Deno.test("isOptedIn() takes a root by its path, by PARENT/* or by *", () => {
  assert.ok(isOptedIn("/shared/.gateway", ["/shared/.gateway"]));
  assert.ok(isOptedIn("/shared/.gateway", ["/shared/.gateway/"]));
  assert.ok(isOptedIn("/shared/team/.gateway", ["/shared/*"]));
  assert.ok(isOptedIn("/anything", ["*"]));
  assert.ok(!isOptedIn("/shared/.gateway", ["/shared"]));
  assert.ok(!isOptedIn("/sharedx/.gateway", ["/shared/*"]));
  assert.ok(!isOptedIn("/shared/.gateway", []));
});

Deno.test("safeRootsFile() lives under $XDG_CONFIG_HOME, else ~/.config", () => {
  assert.equal(safeRootsFile({ XDG_CONFIG_HOME: "/x" }), "/x/gateway/safe_roots");
  assert.equal(safeRootsFile({ HOME: "/h" }), "/h/.config/gateway/safe_roots");
  assert.equal(safeRootsFile({}), null);
});

Deno.test({
  name:
    "assertSafeRoot() refuses a root whose control files another user owns or anyone can write, unless opted in",
  ignore: Deno.uid() !== 0, // giving a file to another user takes root
}, async () => {
  const base = await Deno.makeTempDir({ prefix: "root-safety-" });
  try {
    const root = join(base, "project", ".gateway");
    await Deno.mkdir(join(root, "tools"), { recursive: true });
    await Deno.writeTextFile(join(root, "gateway.json"), "{}");
    const env = { HOME: join(base, "home") };
    assertSafeRoot(root, { env }); // all ours

    // Another user's .mcp.json beside the .gateway/ (it names commands to run).
    await Deno.writeTextFile(join(base, "project", ".mcp.json"), "{}");
    await Deno.chown(join(base, "project", ".mcp.json"), 65534, 65534);
    assert.throws(
      () => assertSafeRoot(root, { env }),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message.includes(
          `Refusing root "${root}": "${join(base, "project", ".mcp.json")}" belongs to uid 65534`,
        ) &&
        error.message.includes(`GATEWAY_SAFE_ROOTS="${root}"`) &&
        error.message.includes(join(base, "home", ".config", "gateway", "safe_roots")),
    );
    assertSafeRoot(root, { env: { ...env, GATEWAY_SAFE_ROOTS: `/elsewhere:${root}` } });
    await Deno.remove(join(base, "project", ".mcp.json"));

    // tools/ that every user can write: anyone could add a module.
    await Deno.chmod(join(root, "tools"), 0o777);
    assert.throws(() => assertSafeRoot(root, { env }), /"[^"]*\/tools" is writable by every user/);
    // Opted in by the user's own safe_roots file…
    const list = join(base, "home", ".config", "gateway", "safe_roots");
    await Deno.mkdir(join(list, ".."), { recursive: true });
    await Deno.writeTextFile(list, `# trusted\n${join(base, "project")}/*\n`);
    assertSafeRoot(root, { env });
    // …but not by one another user can write.
    await Deno.chmod(list, 0o666);
    assert.throws(
      () => assertSafeRoot(root, { env }),
      /safe_roots is ignored: it is writable by every user/,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test({
  name: "assertSafeRoot() judges a root that is a link by who may replace the link too",
  ignore: Deno.uid() !== 0,
}, async () => {
  const base = await Deno.makeTempDir({ prefix: "root-safety-" });
  try {
    const real = join(base, "real");
    await Deno.mkdir(real);
    const link = join(base, ".gateway");
    await Deno.symlink(real, link);
    assertSafeRoot(link, { env: {} });
    await Deno.remove(link);
    await Deno.symlink(real, link);
    // lchown: the link itself becomes the other user's.
    const lchown = new Deno.Command("chown", { args: ["-h", "65534:65534", link] });
    assert.ok((await lchown.output()).success);
    assert.throws(() => assertSafeRoot(link, { env: {} }), /it belongs to uid 65534/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
