import assert from "node:assert/strict";
import { compileArgsConditions, compilePathGlob } from "./args_condition.ts";

Deno.test("compilePathGlob() matches normalised paths: ROOT, *, ?, ** and no way out by spelling", () => {
  const glob = (pattern: string) => compilePathGlob(pattern, "/home/me/project/");
  const out = glob("ROOT/out/**");
  for (
    const path of [
      "/home/me/project/out",
      "/home/me/project/out/a",
      "/home/me/project/out/a/b.txt",
      "/home/me/project//out/./x/",
    ]
  ) {
    assert.equal(out(path), true, path);
  }
  for (
    const path of [
      "/home/me/project/out/../secret",
      "/home/me/project/out/a/../../secret",
      "/home/me/project/outside/a",
      "/home/me/project",
      "out/a",
      "./out/a",
      "../project/out/a",
      "",
      "/home/me/project/out/a\0",
    ]
  ) {
    assert.equal(out(path), false, path);
  }
  assert.equal(glob("/tmp/*.txt")("/tmp/a.txt"), true);
  assert.equal(glob("/tmp/*.txt")("/tmp/.hidden.txt"), true);
  assert.equal(glob("/tmp/*.txt")("/tmp/a/b.txt"), false);
  assert.equal(glob("/tmp/?.txt")("/tmp/ab.txt"), false);
  assert.equal(glob("/tmp/a+(b).txt")("/tmp/a+(b).txt"), true, "regex characters are literal");
  // A relative pattern matches relative paths that stay below where they start.
  assert.equal(glob("docs/**")("docs/a/b.md"), true);
  assert.equal(glob("docs/**")("docs/../../etc/passwd"), false);
  assert.equal(glob("**")("../x"), false);
  assert.equal(glob("**")("/abs"), false);
  // ROOT is taken literally, whatever characters the root's name has.
  assert.equal(compilePathGlob("ROOT/*", "/a*b")("/a*b/x"), true);
  assert.equal(compilePathGlob("ROOT/*", "/a*b")("/aXb/x"), false);
});

Deno.test("compileArgsConditions() needs every condition to hold for every value it reaches", () => {
  const matcher = compileArgsConditions({
    "paths.*": { glob: "/data/**" },
    "options.mode": { equals: "read" },
  }, "/root");
  assert.equal(matcher({ paths: ["/data/a", "/data/b/c"], options: { mode: "read" } }), true);
  assert.equal(matcher({ paths: ["/data/a", "/etc/passwd"], options: { mode: "read" } }), false);
  assert.equal(matcher({ paths: [], options: { mode: "read" } }), false, "nothing to check");
  assert.equal(matcher({ paths: ["/data/a"], options: { mode: "write" } }), false);
  assert.equal(matcher({ paths: ["/data/a"] }), false, "a missing argument does not match");
  assert.equal(matcher({ paths: [7], options: { mode: "read" } }), false);
  // Only the argument's own keys count: nothing is read from Object.prototype.
  const proto = compileArgsConditions({ "constructor.name": { equals: "Object" } }, "/");
  assert.equal(proto({}), false);
  assert.equal(compileArgsConditions({ flag: { equals: null } }, "/")({ flag: null }), true);
});
