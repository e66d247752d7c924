/**
 * Installs the real MCP servers the tests run against (pinned in test/servers/package-lock.json)
 * when they are missing, so `deno task test` works on a fresh checkout without a separate step.
 * @module
 */

import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("./servers/", import.meta.url));
const marker = `${dir}node_modules/.package-lock.json`;

async function installed(): Promise<boolean> {
  try {
    const [lock, done] = await Promise.all([
      Deno.stat(`${dir}package-lock.json`),
      Deno.stat(marker),
    ]);
    return (done.mtime?.getTime() ?? 0) >= (lock.mtime?.getTime() ?? 0);
  } catch {
    return false;
  }
}

if (!(await installed())) {
  console.error("installing the test MCP servers (npm ci --prefix test/servers)…");
  const status = await new Deno.Command("npm", {
    args: ["ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel", "error"],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) {
    console.error("npm ci for test/servers failed: the MCP tests cannot run");
    Deno.exit(1);
  }
}
