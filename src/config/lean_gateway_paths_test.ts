import assert from "node:assert/strict";
import { join } from "node:path";
import { leanGatewayPaths } from "./lean_gateway_paths.ts";
import { resolveDataDir, resolveRoot } from "./gateway_paths.ts";

function full(
  options: { flag: string | null; env: Record<string, string | undefined>; cwd: string },
) {
  const root = resolveRoot({ flag: options.flag ?? undefined, env: options.env, cwd: options.cwd });
  return {
    rootDir: root.dir,
    rootSource: root.source,
    dataDir: resolveDataDir({
      env: options.env,
      os: Deno.build.os,
      cwd: options.cwd,
      rootDir: root.dir,
    }),
  };
}

Deno.test("leanGatewayPaths() finds what resolveRoot() and resolveDataDir() find", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lean-paths-" }));
  try {
    const home = join(base, "home");
    const project = join(base, "work", "my project");
    await Deno.mkdir(join(project, ".gateway"), { recursive: true });
    await Deno.mkdir(join(project, "sub", "deeper"), { recursive: true });
    await Deno.mkdir(join(base, "plain"), { recursive: true });
    await Deno.mkdir(join(home, ".gateway"), { recursive: true });
    const cases = [
      { flag: "../plain", env: { HOME: home }, cwd: join(base, "work") },
      { flag: null, env: { HOME: home, GATEWAY_ROOT: "plain/" }, cwd: base },
      { flag: null, env: { HOME: home }, cwd: join(project, "sub", "deeper") },
      { flag: null, env: { HOME: home }, cwd: join(base, "plain") },
      { flag: null, env: { HOME: join(base, "nohome") }, cwd: join(base, "plain") },
      { flag: null, env: { HOME: home, GATEWAY_DATA_DIR: "./data//x/" }, cwd: project },
      { flag: null, env: { HOME: home, XDG_DATA_HOME: join(base, "xdg") }, cwd: project },
    ];
    for (const options of cases) {
      assert.deepEqual(
        leanGatewayPaths(options),
        await full(options),
        JSON.stringify(options),
      );
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("leanGatewayPaths() leaves a root that is not a directory to the full resolver", () => {
  assert.deepEqual(leanGatewayPaths({ flag: "/nonexistent/x", env: {}, cwd: "/" }), null);
});
