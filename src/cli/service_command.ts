/**
 * `gateway service install|uninstall|status [--print]`: a systemd user unit (Linux) or a
 * launchd agent (macOS) that runs `gateway server` for a root and restarts it on failure
 * (SPEC §12). Talks to `systemctl --user`/`launchctl` when present, and says so when not.
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway service`. */
export const SERVICE_USAGE = `Usage: gateway service install|uninstall|status [--print] [--root DIR]

Runs gateway server for the root as a user service that restarts on failure and logs to the
data dir. --print shows the unit/plist without installing.`;

/** What the service file needs to know. */
export interface ServiceSpec {
  denoPath: string;
  mainPath: string;
  root: string;
  dataDir: string;
}

/** The systemd user unit text. */
export function systemdUnit(spec: ServiceSpec): string {
  const q = (s: string) => `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return `[Unit]
Description=gateway (code-mode MCP gateway) for ${spec.root}
After=network.target

[Service]
Type=simple
ExecStart=${q(spec.denoPath)} run --allow-all --no-prompt ${q(spec.mainPath)} server --root ${
    q(spec.root)
  } --log-file ${q(join(spec.dataDir, "server.log"))}
Environment=GATEWAY_DATA_DIR=${q(spec.dataDir)}
Restart=on-failure
RestartSec=2
KillMode=control-group
TimeoutStopSec=15

[Install]
WantedBy=default.target
`;
}

/** The launchd agent plist text. */
export function launchdPlist(spec: ServiceSpec): string {
  const x = (s: string) =>
    s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const args = [
    spec.denoPath,
    "run",
    "--allow-all",
    "--no-prompt",
    spec.mainPath,
    "server",
    "--root",
    spec.root,
    "--log-file",
    join(spec.dataDir, "server.log"),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.gateway.server</string>
  <key>ProgramArguments</key>
  <array>
${args.map((a) => `    <string>${x(a)}</string>`).join("\n")}
  </array>
  <key>EnvironmentVariables</key>
  <dict><key>GATEWAY_DATA_DIR</key><string>${x(spec.dataDir)}</string></dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
  <key>StandardOutPath</key><string>${x(join(spec.dataDir, "service.out.log"))}</string>
  <key>StandardErrorPath</key><string>${x(join(spec.dataDir, "service.err.log"))}</string>
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
  const parsed = parseCommandArgs(args, { booleans: ["print"] }, SERVICE_USAGE);
  if (parsed.flags.help) {
    context.output.out(`${SERVICE_USAGE}\n`);
    return 0;
  }
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
  const spec: ServiceSpec = {
    denoPath: Deno.execPath(),
    mainPath: fileURLToPath(new URL("../main.ts", import.meta.url)),
    root: context.root.dir,
    dataDir: context.dataDir,
  };
  const mac = Deno.build.os === "darwin";
  const file = mac ? join(home, "Library", "LaunchAgents", "dev.gateway.server.plist") : join(
    context.env.XDG_CONFIG_HOME ?? join(home, ".config"),
    "systemd",
    "user",
    "gateway.service",
  );
  const text = mac ? launchdPlist(spec) : systemdUnit(spec);
  const manager = mac ? "launchctl" : "systemctl";
  const hasManager = await which(manager);
  const out = context.output.out;
  if (parsed.flags.print) {
    out(`# ${file}\n${text}`);
    return 0;
  }
  if (verb === "install") {
    await Deno.mkdir(join(file, ".."), { recursive: true });
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
        "gateway.service",
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
        : await run("systemctl", ["--user", "disable", "--now", "gateway.service"]);
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
  if (installed && hasManager) {
    const result = mac
      ? await run("launchctl", ["list", "dev.gateway.server"])
      : await run("systemctl", ["--user", "is-active", "gateway.service"]);
    out(`${manager}: ${result.text || (result.ok ? "active" : "inactive")}\n`);
  } else if (!hasManager) out(`${manager} is not available here\n`);
  return 0;
}
