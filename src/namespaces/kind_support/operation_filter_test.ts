import assert from "node:assert/strict";
import { globMatch, operationSelected } from "./operation_filter.ts";

const OP = {
  name: "repos_list_for_org",
  method: "get",
  path: "/orgs/{org}/repos",
  tags: ["repos"],
};

Deno.test("operationSelected() keeps operations by tag, method and path, path, or name glob", () => {
  const keep = (include: string[], exclude: string[] = []) =>
    operationSelected(OP, { include, exclude });
  assert.equal(keep([]), true);
  assert.equal(keep(["tag:repos"]), true);
  assert.equal(keep(["tag:issues"]), false);
  assert.equal(keep(["GET /orgs/*"]), true);
  assert.equal(keep(["POST /orgs/*"]), false);
  assert.equal(keep(["/orgs/*/repos"]), true);
  assert.equal(keep(["repos_*"]), true);
  assert.equal(keep(["tag:repos"], ["*_for_org"]), false);
});

Deno.test("globMatch() treats only * as special", () => {
  assert.equal(globMatch("a.b*", "a.bc"), true);
  assert.equal(globMatch("a.b*", "axbc"), false);
  assert.equal(globMatch("/pets/{id}", "/pets/{id}"), true);
});
