import assert from "node:assert/strict";
import { defaultSessionName } from "./default_session_name.ts";

Deno.test("defaultSessionName() names a directory by its folder and a hash of its path", () => {
  const a = defaultSessionName("/home/me/project");
  assert.match(a, /^project-[0-9a-f]{8}$/);
  assert.equal(defaultSessionName("/home/me/project/"), a);
  assert.notEqual(defaultSessionName("/tmp/project"), a);
  assert.match(defaultSessionName("/"), /^root-[0-9a-f]{8}$/);
  assert.match(defaultSessionName("/tmp/my dir!"), /^my_dir_-[0-9a-f]{8}$/);
});
