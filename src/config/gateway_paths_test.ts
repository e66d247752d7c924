import assert from "node:assert/strict";
import { join } from "node:path";
import { installationDir, resolveDataDir, resolveRoot, rootKey } from "./gateway_paths.ts";

async function tree(paths: string[]): Promise<string> {
  const base = await Deno.makeTempDir({ prefix: "gateway-paths-" });
  for (const path of paths) {
    if (path.endsWith("/")) await Deno.mkdir(join(base, path), { recursive: true });
    else {
      await Deno.mkdir(join(base, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(base, path), "{}");
    }
  }
  return base;
}

Deno.test("resolveRoot() takes --root first, then $GATEWAY_ROOT, then .gateway/ walking up", async () => {
  const base = await tree([
    "flag/",
    "env/",
    "project/.gateway/gateway.json",
    "project/a/b/",
    "home/",
  ]);
  try {
    const env = { HOME: join(base, "home") };
    const cwd = join(base, "project/a/b");
    assert.deepEqual(
      resolveRoot({
        flag: join(base, "flag"),
        env: { ...env, GATEWAY_ROOT: join(base, "env") },
        cwd,
      }),
      {
        dir: join(base, "flag"),
        source: "flag",
        configFile: null,
      },
    );
    assert.equal(
      resolveRoot({ env: { ...env, GATEWAY_ROOT: join(base, "env") }, cwd }).source,
      "env",
    );
    const project = resolveRoot({ env, cwd });
    assert.equal(project.dir, join(base, "project/.gateway"));
    assert.equal(project.source, "project");
    assert.equal(project.configFile, join(base, "project/.gateway/gateway.json"));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("resolveRoot() falls back to ~/.gateway, then a lootbox root, then the installation", async () => {
  const base = await tree([
    "home/.gateway/",
    "lb/.lootbox/",
    "lb/lootbox.config.json",
    "lb/x/",
    "none/",
  ]);
  try {
    assert.equal(
      resolveRoot({ env: { HOME: join(base, "home") }, cwd: join(base, "none") }).source,
      "home",
    );
    const lootbox = resolveRoot({ env: { HOME: join(base, "nohome") }, cwd: join(base, "lb/x") });
    assert.equal(lootbox.source, "lootbox");
    assert.equal(lootbox.dir, join(base, "lb/.lootbox"));
    assert.equal(lootbox.configFile, join(base, "lb/lootbox.config.json"));
    const bundled = resolveRoot({ env: { HOME: join(base, "nohome") }, cwd: join(base, "none") });
    assert.equal(bundled.source, "bundled");
    assert.equal(bundled.dir, installationDir());
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("resolveRoot() refuses a --root that is not a directory, naming it", () => {
  assert.throws(
    () => resolveRoot({ flag: "/nonexistent/gw-root", env: {}, cwd: "/" }),
    /Root "\/nonexistent\/gw-root" given by --root is not a directory/,
  );
});

Deno.test("resolveDataDir() prefers $GATEWAY_DATA_DIR, else a dir per root under XDG or the platform default", () => {
  const rootDir = "/home/me/shop/.gateway";
  const key = rootKey(rootDir);
  assert.equal(
    resolveDataDir({ env: { GATEWAY_DATA_DIR: "d" }, os: "linux", cwd: "/w", rootDir }),
    "/w/d",
  );
  assert.equal(
    resolveDataDir({ env: { XDG_DATA_HOME: "/x" }, os: "linux", cwd: "/", rootDir }),
    `/x/gateway/roots/${key}`,
  );
  assert.equal(
    resolveDataDir({ env: { HOME: "/h" }, os: "linux", cwd: "/", rootDir }),
    `/h/.local/share/gateway/roots/${key}`,
  );
  assert.equal(
    resolveDataDir({ env: { HOME: "/h" }, os: "darwin", cwd: "/", rootDir }),
    `/h/Library/Application Support/gateway/roots/${key}`,
  );
});

Deno.test("rootKey() names a root after its project and keeps same-named projects apart", () => {
  assert.match(rootKey("/home/me/shop/.gateway"), /^shop-[0-9a-f]{8}$/);
  assert.match(rootKey("/srv/My Site"), /^my-site-[0-9a-f]{8}$/);
  assert.notEqual(rootKey("/a/shop/.gateway"), rootKey("/b/shop/.gateway"));
  assert.equal(rootKey("/a/shop/.gateway"), rootKey("/a/shop/.gateway/"));
});
