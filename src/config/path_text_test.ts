import assert from "node:assert/strict";
import { filePathOf, pathText } from "./path_text.ts";

Deno.test("pathText('linux') resolves, splits and joins POSIX paths as node:path does", () => {
  const path = pathText("linux");
  assert.equal(path.resolve("/a/b", "../c/./d/"), "/a/c/d");
  assert.equal(path.resolve("/a", "/x//y/.."), "/x");
  assert.equal(path.resolve("/", ".."), "/");
  assert.equal(path.dirname("/a/b/"), "/a");
  assert.equal(path.dirname("/a"), "/");
  assert.equal(path.dirname("/"), "/");
  assert.equal(path.dirname("a"), ".");
  assert.equal(path.basename("/a/b.ts"), "b.ts");
  assert.equal(path.basename("/a/b/"), "b");
  assert.equal(path.join("/a/", "b", "../c"), "/a/c");
  assert.equal(path.join("rel", "x"), "rel/x");
  assert.equal(path.join("", ""), ".");
  assert.ok(path.isAbsolute("/x") && !path.isAbsolute("x"));
});

Deno.test("pathText('windows') resolves drive and UNC paths with backslashes", () => {
  const path = pathText("windows");
  assert.equal(path.resolve("C:\\work", "..\\x/y"), "C:\\x\\y");
  assert.equal(path.resolve("c:\\work", "\\top"), "C:\\top");
  assert.equal(path.resolve("C:\\work", "D:\\other\\."), "D:\\other");
  assert.equal(path.resolve("C:\\", "\\\\srv\\share\\a\\..\\b"), "\\\\srv\\share\\b");
  assert.equal(path.dirname("C:\\a\\b"), "C:\\a");
  assert.equal(path.dirname("C:\\a"), "C:\\");
  assert.equal(path.basename("C:\\a\\b.json"), "b.json");
  assert.equal(path.join("C:\\a", "b", "..\\c"), "C:\\a\\c");
  assert.ok(path.isAbsolute("C:/x") && !path.isAbsolute("x\\y"));
  assert.equal(path.delimiter, ";");
});

Deno.test("filePathOf() reads a file: URL's path, decoded", () => {
  assert.equal(filePathOf(new URL("file:///srv/my%20dir/x.ts"), "linux"), "/srv/my dir/x.ts");
  assert.equal(filePathOf(new URL("file:///C:/a/b.ts"), "windows"), "C:\\a\\b.ts");
});
