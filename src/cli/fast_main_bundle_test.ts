import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { fullCliArgs } from "./fast_main.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = fileURLToPath(new URL("./fast_main.bundle.js", import.meta.url));

Deno.test("the installed command's bundle loads nothing but itself", async () => {
  // Run with --no-config, the bundle can resolve no import map entry and check no lock: any
  // static import left in it would be a module loaded on every `gateway exec`.
  const text = await Deno.readTextFile(BUNDLE);
  assert.doesNotMatch(text, /^\s*import\s[^(]/m);
  assert.doesNotMatch(text, /\bimport\(\s*["']/);
});

Deno.test("fullCliArgs() runs src/main.ts with the project's deno.json and the same argv", async () => {
  const args = fullCliArgs(["--root", "/r", "tools", "a b"]);
  const config = args[args.indexOf("--config") + 1]!;
  assert.equal(config, fileURLToPath(new URL("deno.json", `file://${REPO}`)));
  assert.ok((await Deno.stat(config)).isFile);
  assert.ok((await Deno.stat(args.at(-5)!)).isFile);
  assert.ok(args.at(-5)!.endsWith("/src/main.ts"));
  assert.deepEqual(args.slice(-4), ["--root", "/r", "tools", "a b"]);
  assert.deepEqual(args.slice(0, 3), ["run", "--allow-all", "--no-prompt"]);
});
