import assert from "node:assert/strict";
import { sandboxExecProfile, seatbeltString } from "./sandbox_exec_profile.ts";
import type { SandboxView } from "./sandbox_view.ts";

const VIEW: SandboxView = {
  read: ["/Users/me/project"],
  write: ["/Users/me/project/out"],
  hidden: ["/Users/me/Library/Application Support/gateway"],
  private: ["/Users/me", "/private/tmp"],
  masked: [],
  own: ["/Users/me/.deno/bin", "/Users/me/Library/Caches/deno"],
  ownWritable: [],
  scratch: ["/Users/me/Library/Caches/deno/location_data"],
  net: false,
  cwd: "/Users/me/project",
};

/** The rules of a profile, one per line, after the header. */
function rules(profile: string): string[] {
  return profile.split("\n");
}

Deno.test("seatbeltString() quotes backslashes and double quotes", () => {
  assert.equal(seatbeltString('a "b" \\c'), '"a \\"b\\" \\\\c"');
});

Deno.test("sandboxExecProfile() denies private directories, then allows the grants inside them, then denies the hidden ones", () => {
  const lines = rules(sandboxExecProfile(VIEW));
  assert.deepEqual(lines.slice(0, 2), ["(version 1)", "(allow default)"]);
  const at = (rule: string) => {
    const index = lines.indexOf(rule);
    assert.ok(index >= 0, `missing ${rule} in\n${lines.join("\n")}`);
    return index;
  };
  const privateDeny = at(
    '(deny file-read* file-write* (subpath "/Users/me") (subpath "/private/tmp"))',
  );
  const writes = at("(deny file-write*)");
  const readGrant = at('(allow file-read* (subpath "/Users/me/project"))');
  const writeGrant = at(
    '(allow file-read* file-write* (subpath "/Users/me/project/out"))',
  );
  const hidden = at(
    '(deny file-read* file-write* (subpath "/Users/me/Library/Application Support/gateway"))',
  );
  const own = at(
    '(allow file-read* (subpath "/Users/me/.deno/bin") (subpath "/Users/me/Library/Caches/deno"))',
  );
  // Later rules win: each step overrides the one before it.
  assert.ok(privateDeny < readGrant && writes < writeGrant && writeGrant < hidden && hidden < own);
  assert.ok(lines.includes("(deny network*)"));
  assert.ok(lines.includes("(allow network-outbound (remote unix-socket))"));
});

Deno.test("sandboxExecProfile() leaves reads, writes and the network alone when all are granted, and masks secrets last", () => {
  const lines = rules(sandboxExecProfile({
    ...VIEW,
    read: true,
    write: true,
    private: [],
    hidden: [],
    masked: ["/Users/me/data/token"],
    net: true,
  }));
  assert.ok(!lines.some((l) => l.startsWith("(deny file-write*)")));
  assert.ok(!lines.some((l) => l.includes("network")));
  assert.equal(lines.at(-1), '(deny file-read* file-write* (subpath "/Users/me/data/token"))');
});
