/**
 * `gateway service install|uninstall|status [--print]`: a systemd user unit (Linux) or a
 * launchd agent (macOS) that runs `gateway server` for a root and restarts it on failure.
 * Talks to `systemctl --user`/`launchctl` when present, and says so when not.
 * @module
 */

import { dirname, join } from "node:path";
import { envFilePath } from "../config/env_file.ts";
import { rootKey } from "../config/gateway_paths.ts";
import { fileURLToPath } from "node:url";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";
import { SERVER_V8_FLAGS } from "../config/server_v8_flags.ts";

/** Usage text of `gateway service`. */
export const SERVICE_USAGE = `Usage: gateway service install|uninstall|status [--root DIR]
       gateway service install --print [--platform linux|macos]

Runs gateway server for the root as a user service (systemd on Linux, launchd on macOS) that
starts at login, restarts on failure and logs to the data dir. The unit carries the root's
name, so each project can have one. It runs with the PATH found now (deno, node, npx) and
reads ROOT/gateway.env for the variables your config references.
  --print            show the file install would write (this platform's), install nothing
  --platform P       with --print: the file of linux (systemd unit) or macos (launchd plist)`;

/** The platforms a service file is written for, by `--platform` name. */
const PLATFORMS = { linux: "systemd user unit", macos: "launchd agent" } as const;

/** What the service file needs to know. */
export interface ServiceSpec {
  denoPath: string;
  mainPath: string;
  root: string;
  dataDir: string;
  /** `rootKey()` of the root: names the unit and the launchd label. */
  key: string;
  /** The environment the server gets: PATH, HOME, DENO_DIR as found at install time. */
  env: Record<string, string>;
  /** `ROOT/gateway.env`, loaded as the unit's `EnvironmentFile`. */
  envFile: string;
}

/** The systemd unit's file name for a root. */
export function systemdUnitName(key: string): string {
  return `gateway-${key}.service`;
}

/** The launchd label for a root. */
export function launchdLabel(key: string): string {
  return `dev.gateway.${key}`;
}

/**
 * The PATH a service needs: the directories where `deno`, `node` and `npx` are now (a login
 * session's PATH is not a service's), then the system's usual ones.
 */
export function servicePath(
  options: { denoPath: string; path: string | undefined },
): string {
  const dirs = [dirname(options.denoPath)];
  for (const command of ["node", "npx"]) {
    const found = whichSync(command, options.path);
    if (found) dirs.push(dirname(found));
  }
  dirs.push("/usr/local/bin", "/usr/bin", "/bin");
  return [...new Set(dirs)].join(":");
}

function whichSync(command: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(":")) {
    if (dir === "") continue;
    try {
      if (Deno.statSync(join(dir, command)).isFile) return join(dir, command);
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** The command line the service runs. */
function serviceArgs(spec: ServiceSpec): string[] {
  return [
    spec.denoPath,
    "run",
    "--allow-all",
    "--no-prompt",
    SERVER_V8_FLAGS,
    spec.mainPath,
    "server",
    "--root",
    spec.root,
    "--log-file",
    join(spec.dataDir, "server.log"),
  ];
}

/** The systemd user unit text. */
export function systemdUnit(spec: ServiceSpec): string {
  const q = (s: string) =>
    `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("%", "%%")}"`;
  const env = { ...spec.env, GATEWAY_DATA_DIR: spec.dataDir };
  return `[Unit]
Description=gateway (code-mode MCP gateway) for ${spec.root.replaceAll("%", "%%")}
After=network.target

[Service]
Type=simple
ExecStart=${serviceArgs(spec).map(q).join(" ")}
WorkingDirectory=${spec.root.replaceAll("%", "%%")}
${Object.entries(env).map(([k, v]) => `Environment=${q(`${k}=${v}`)}`).join("\n")}
EnvironmentFile=-${spec.envFile.replaceAll("%", "%%")}
StandardOutput=append:${join(spec.dataDir, "service.log")}
StandardError=append:${join(spec.dataDir, "service.log")}
Restart=on-failure
RestartSec=2
KillMode=control-group
TimeoutStopSec=15

[Install]
WantedBy=default.target
`;
}

/**
 * The launchd agent plist text. launchd has no env file: the server reads `gateway.env`
 * itself (as it does under systemd too), so values there reach `\${env:…}` references.
 */
export function launchdPlist(spec: ServiceSpec): string {
  const x = (s: string) =>
    s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const env = { ...spec.env, GATEWAY_DATA_DIR: spec.dataDir };
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${x(launchdLabel(spec.key))}</string>
  <key>ProgramArguments</key>
  <array>
${serviceArgs(spec).map((a) => `    <string>${x(a)}</string>`).join("\n")}
  </array>
  <key>WorkingDirectory</key><string>${x(spec.root)}</string>
  <key>EnvironmentVariables</key>
  <dict>
${Object.entries(env).map(([k, v]) => `    <key>${x(k)}</key><string>${x(v)}</string>`).join("\n")}
  </dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
  <key>StandardOutPath</key><string>${x(join(spec.dataDir, "service.log"))}</string>
  <key>StandardErrorPath</key><string>${x(join(spec.dataDir, "service.log"))}</string>
</dict>
</plist>
`;
}

async function which(command: string): Promise<boolean> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if ((await Deno.stat(join(dir, command))).isFile) return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

async function run(command: string, args: string[]): Promise<{ ok: boolean; text: string }> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { ok: out.success, text: text.trim() };
}

/** Runs `gateway service`. */
export async function serviceCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { booleans: ["print"], strings: ["platform"] },
    SERVICE_USAGE,
  );
  const verb = parsed.positionals[0];
  if (verb !== "install" && verb !== "uninstall" && verb !== "status") {
    throw new UsageError(
      `service needs install, uninstall or status (got "${verb ?? ""}")`,
      SERVICE_USAGE,
    );
  }
  const home = context.env.HOME;
  if (!home) {
    throw new UsageError("service needs $HOME to find the user service directory", SERVICE_USAGE);
  }
  const denoPath = Deno.execPath();
  const key = rootKey(context.root.dir);
  const spec: ServiceSpec = {
    denoPath,
    mainPath: fileURLToPath(new URL("../main.ts", import.meta.url)),
    root: context.root.dir,
    dataDir: context.dataDir,
    key,
    env: {
      PATH: servicePath({ denoPath, path: context.env.PATH }),
      HOME: home,
      ...(context.env.DENO_DIR ? { DENO_DIR: context.env.DENO_DIR } : {}),
    },
    envFile: envFilePath(context.root.dir),
  };
  const platform = parsed.flags.platform;
  if (platform !== undefined) {
    if (!(String(platform) in PLATFORMS)) {
      throw new UsageError(
        `--platform takes linux or macos, not "${String(platform)}"`,
        SERVICE_USAGE,
      );
    }
    if (!parsed.flags.print) {
      throw new UsageError(
        "--platform goes with --print: a service is installed for the platform it runs on",
        SERVICE_USAGE,
      );
    }
  }
  const mac = platform === undefined ? Deno.build.os === "darwin" : platform === "macos";
  const unitName = systemdUnitName(key);
  const systemdFile = join(
    context.env.XDG_CONFIG_HOME ?? join(home, ".config"),
    "systemd",
    "user",
    unitName,
  );
  const launchdFile = join(home, "Library", "LaunchAgents", `${launchdLabel(key)}.plist`);
  const file = mac ? launchdFile : systemdFile;
  const text = mac ? launchdPlist(spec) : systemdUnit(spec);
  const manager = mac ? "launchctl" : "systemctl";
  const hasManager = await which(manager);
  const out = context.output.out;
  if (parsed.flags.print) {
    out(`# ${PLATFORMS[mac ? "macos" : "linux"]}: ${file}\n${text}`);
    return 0;
  }
  if (verb === "install") {
    await Deno.mkdir(join(file, ".."), { recursive: true });
    await Deno.mkdir(spec.dataDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(file, text);
    out(`wrote ${file}\n`);
    if (!hasManager) {
      out(
        `${manager} is not available here: the file is written; load it yourself when ${manager} is present\n`,
      );
      return 0;
    }
    const steps: Array<[string, string[]]> = mac
      ? [["launchctl", ["load", "-w", file]]]
      : [["systemctl", ["--user", "daemon-reload"]], ["systemctl", [
        "--user",
        "enable",
        "--now",
        unitName,
      ]]];
    for (const [cmd, cmdArgs] of steps) {
      context.output.err(`running ${cmd} ${cmdArgs.join(" ")}…\n`);
      const result = await run(cmd, cmdArgs);
      if (!result.ok) {
        context.output.err(
          `error[ServiceFailed]: ${cmd} ${cmdArgs.join(" ")} failed: ${result.text}\n`,
        );
        return 1;
      }
    }
    out("service installed and started\n");
    return 0;
  }
  if (verb === "uninstall") {
    if (hasManager) {
      const result = mac
        ? await run("launchctl", ["unload", "-w", file])
        : await run("systemctl", ["--user", "disable", "--now", unitName]);
      if (!result.ok) context.output.err(`warning: ${manager} said: ${result.text}\n`);
    } else out(`${manager} is not available here: only removing the file\n`);
    try {
      await Deno.remove(file);
      out(`removed ${file}\n`);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      out(`no service file at ${file}\n`);
    }
    return 0;
  }
  let installed = true;
  try {
    await Deno.stat(file);
  } catch {
    installed = false;
  }
  out(`${installed ? "installed" : "not installed"}: ${file}\n`);
  out(`root: ${spec.root}\nenv file: ${spec.envFile}\n`);
  out(
    `logs: ${join(spec.dataDir, "server.log")} (service output: ${
      join(spec.dataDir, "service.log")
    })\n`,
  );
  if (installed && hasManager) {
    const result = mac
      ? await run("launchctl", ["list", launchdLabel(key)])
      : await run("systemctl", ["--user", "is-active", unitName]);
    out(`${manager}: ${result.text || (result.ok ? "active" : "inactive")}\n`);
  } else if (!hasManager) out(`${manager} is not available here\n`);
  return 0;
}
