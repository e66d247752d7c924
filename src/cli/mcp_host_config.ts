/**
 * `gateway mcp --print-config`: the exact entries that add this root's gateway to an MCP host —
 * Claude Code, Claude Desktop, Cursor — over stdio (the host starts `gateway mcp`) and over
 * HTTP (the host reaches the running server at a port that stays this root's, with its token).
 * The stdio command names `deno` and the command's bundle by absolute path and the root by
 * `--root`, so it runs the same whatever directory and environment a host starts it with.
 * @module
 */

import { sha256Hex } from "../config/sha256_hex.ts";

/** What the entries are made from. */
export interface McpHostSetup {
  /** The root, as `--root` names it. */
  root: string;
  /** A short name for the root (`rootKey`), for entries kept in a user-wide file. */
  key: string;
  /** The project directory (the parent of a `.gateway/` root, else the root). */
  project: string;
  /** `deno`'s absolute path and the installed command's bundle. */
  deno: string;
  bundle: string;
  /**
   * Variables the host must pass for the command to find what this shell finds: `$DENO_DIR`
   * when set (else the default cache), `$GATEWAY_DATA_DIR` when this root's data dir is not the
   * one a bare environment derives (pinned, or under a custom `$XDG_DATA_HOME`).
   */
  env: Record<string, string>;
  /** The root's `"port"` in gateway.json, or undefined when it names none. */
  configuredPort: number | undefined;
  /** The root's config file (where `"port"` goes). */
  configFile: string;
  /** The data dir's token (the HTTP entries' credential). */
  token: string;
  /** Where the host's config files are for this user. */
  home: string;
  os: typeof Deno.build.os;
}

/**
 * The port a root's server should keep so HTTP entries stay right: 20000–29999, by the root's
 * path, so two projects rarely pick the same one (and below every OS's ephemeral range).
 */
export function stablePortFor(root: string): number {
  return 20000 + parseInt(sha256Hex(root).slice(0, 8), 16) % 10000;
}

/** The stdio server entry (`command`, `args`, `env`) every host takes. */
export function stdioEntry(setup: McpHostSetup): Record<string, unknown> {
  return {
    command: setup.deno,
    args: [
      "run",
      "--allow-all",
      "--no-prompt",
      "--no-config",
      "--v8-flags=--single-threaded",
      setup.bundle,
      "mcp",
      "--root",
      setup.root,
    ],
    ...(Object.keys(setup.env).length > 0 ? { env: setup.env } : {}),
  };
}

/** Claude Desktop's config file on this OS. */
function claudeDesktopFile(setup: McpHostSetup): string {
  if (setup.os === "darwin") {
    return `${setup.home}/Library/Application Support/Claude/claude_desktop_config.json`;
  }
  if (setup.os === "windows") return "%APPDATA%\\Claude\\claude_desktop_config.json";
  return `${setup.home}/.config/Claude/claude_desktop_config.json`;
}

/** A JSON object with two-space indentation, each line prefixed by `indent`. */
function json(value: unknown, indent = ""): string {
  return JSON.stringify(value, null, 2).split("\n").map((line) => `${indent}${line}`).join("\n");
}

/** A word safe to put in a shell command line unquoted, or single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Everything `--print-config` prints. */
export function mcpHostConfigText(setup: McpHostSetup): string {
  const stdio = stdioEntry(setup);
  const args = stdio.args as string[];
  const desktopName = `gateway-${setup.key}`;
  const port = setup.configuredPort ?? stablePortFor(setup.root);
  const url = `http://127.0.0.1:${port}/mcp`;
  const header = `Bearer ${setup.token}`;
  const lines = [
    `# The gateway of ${setup.root} in an MCP host. Over stdio the host starts it (in any`,
    "# environment it reaches the server this root already runs); over HTTP it reaches the",
    "# running server.",
    "",
    `## stdio: Claude Code (${setup.project}/.mcp.json) and Cursor (${setup.project}/.cursor/mcp.json)`,
    json({ mcpServers: { gateway: stdio } }),
    "# Claude Code from the command line instead:",
    `claude mcp add gateway${
      Object.entries(setup.env).map(([k, v]) => ` -e ${shellWord(`${k}=${v}`)}`).join("")
    } -- ${[setup.deno, ...args].map(shellWord).join(" ")}`,
    "",
    `## stdio: Claude Desktop (${claudeDesktopFile(setup)})`,
    json({ mcpServers: { [desktopName]: stdio } }),
    "",
    "## HTTP",
  ];
  if (setup.configuredPort === undefined) {
    lines.push(
      `# First give this root a port that stays its own: add "port": ${port} to`,
      `# ${setup.configFile}, then restart it (gateway stop; gateway start).`,
    );
  } else {
    lines.push(`# The server keeps port ${port} (${setup.configFile}); start it: gateway start.`);
  }
  lines.push(
    "# The header holds the token of this root's data dir: keep these files out of version",
    "# control (Claude Code's local scope below is private to you).",
    "# Claude Code:",
    `claude mcp add --transport http gateway ${url} --header ${
      shellWord(`Authorization: ${header}`)
    }`,
    "# Cursor (~/.cursor/mcp.json):",
    json({ mcpServers: { gateway: { url, headers: { Authorization: header } } } }),
    "# Claude Desktop takes no HTTP servers in its config file: use its stdio entry above.",
  );
  return `${lines.join("\n")}\n`;
}
