/**
 * The README's "Running several instances" setup, run as written: its settings block replaced by
 * test values (a throw-away PostgreSQL cluster, temp dirs, free ports), every other block
 * verbatim — the `gateway.json`, the start script, the nginx config (with the test's ports) —
 * so tests drive three instances on one database behind nginx round robin exactly as a reader
 * would set them up. `stop()` ends nginx, the instances and the database, whatever happened.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { MAIN, REPO } from "./gateway_harness.ts";
import { pollUntil } from "./poll_until.ts";
import { postgresAvailable, startPostgresCluster } from "./postgres_cluster.ts";

const README = join(REPO, "README.md");

/** The full path of an executable on PATH (or /usr/sbin), null when absent. */
export function which(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").concat(["/usr/sbin"])) {
    try {
      if (Deno.statSync(join(dir, name)).isFile) return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether the setup can run here: PostgreSQL, nginx and curl installed. */
export function severalInstancesAvailable(): boolean {
  return postgresAvailable() && which("nginx") !== null && which("curl") !== null;
}

/** The fenced blocks of one README section, in order, with their language. */
export function sectionBlocks(text: string, heading: string): { lang: string; body: string }[] {
  const start = text.indexOf(`## ${heading}\n`);
  assert.ok(start >= 0, `README has no "## ${heading}" section`);
  const rest = text.slice(start + heading.length + 4);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
  }));
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Runs a bash script with exactly `env`. */
export async function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Three instances behind nginx, started from the README. */
export interface SeveralInstances {
  /** nginx's port. */
  proxyPort: number;
  /** Each instance's own port. */
  ports: number[];
  /** The token they share. */
  token: string;
  /** The README's environment (`STATE`, `PORTS`, `DATABASE_URL`, a `gateway` on PATH …). */
  env: Record<string, string>;
  /** The temp dir everything lives under (`state/PORT` per instance). */
  base: string;
  /** The README's last block (use through the proxy, then stop the instances). */
  useScript: string;
  stop(): Promise<void>;
}

/**
 * Starts the README's setup. `files` adds files to the shared root (a tool module …) and
 * `config` keys to its `gateway.json`, beside the README's own.
 */
export async function startSeveralInstances(
  options: { files?: Record<string, string>; config?: Record<string, unknown> } = {},
): Promise<SeveralInstances> {
  const blocks = sectionBlocks(await Deno.readTextFile(README), "Running several instances");
  assert.deepEqual(blocks.map((b) => b.lang), ["sh", "jsonc", "sh", "nginx", "sh"]);
  const [settings, config, startScript, nginxConf, useScript] = blocks.map((b) => b.body) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const cluster = await startPostgresCluster();
  const base = await Deno.makeTempDir({ prefix: "gateway-readme-" });
  const ports = [freePort(), freePort(), freePort()];
  const proxyPort = freePort();
  let proxy: Deno.ChildProcess | null = null;
  const env: Record<string, string> = {
    PATH: `${join(base, "bin")}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: Deno.env.get("HOME") ?? base,
    NO_COLOR: "1",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    DATABASE_URL: cluster.url,
    GATEWAY_ROOT: join(base, "root"),
    STATE: join(base, "state"),
    PORTS: ports.join(" "),
  };
  const stop = async () => {
    if (proxy) {
      proxy.kill("SIGTERM");
      await proxy.status;
      await proxy.stderr.cancel();
    }
    for (const port of ports) {
      try {
        const state = JSON.parse(
          await Deno.readTextFile(join(base, "state", String(port), "server.json")),
        ) as { pid: number };
        Deno.kill(state.pid, "SIGTERM");
      } catch {
        // stopped already (the README's own stop line)
      }
    }
    await cluster.stop();
    await Deno.remove(base, { recursive: true }).catch(() => {});
  };
  try {
    // The settings block only names values; the test sets its own in their place.
    for (const name of ["DATABASE_URL", "GATEWAY_ROOT", "STATE", "PORTS"]) {
      assert.match(settings, new RegExp(`^export ${name}=`, "m"));
    }
    await Deno.mkdir(join(base, "bin"));
    await Deno.writeTextFile(
      join(base, "bin", "gateway"),
      `#!/bin/sh\nexec "${Deno.execPath()}" run --allow-all --no-prompt --quiet "${MAIN}" "$@"\n`,
      { mode: 0o755 },
    );
    await Deno.mkdir(join(base, "root", "tools"), { recursive: true });
    for (const [path, text] of Object.entries(options.files ?? {})) {
      await Deno.mkdir(join(base, "root", path, ".."), { recursive: true });
      await Deno.writeTextFile(join(base, "root", path), text);
    }
    await Deno.writeTextFile(
      join(base, "root", "gateway.json"),
      options.config
        ? JSON.stringify({ ...JSON.parse(config.replace(/^\s*\/\/.*$/gm, "")), ...options.config })
        : config,
    );

    const started = await bash(startScript, env);
    assert.equal(started.code, 0, started.stderr + started.stdout);

    const conf = nginxConf
      .replaceAll("127.0.0.1:9421", `127.0.0.1:${ports[0]}`)
      .replaceAll("127.0.0.1:9422", `127.0.0.1:${ports[1]}`)
      .replaceAll("127.0.0.1:9423", `127.0.0.1:${ports[2]}`)
      .replace("listen 8080;", `listen 127.0.0.1:${proxyPort};`);
    const temp = (name: string) => `${name}_temp_path ${join(base, `nginx-${name}`)};`;
    await Deno.writeTextFile(
      join(base, "nginx.conf"),
      `pid ${join(base, "nginx.pid")};\nerror_log ${join(base, "nginx-error.log")};\n` +
        `events {}\nhttp {\naccess_log off;\n${
          ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join("\n")
        }\n${conf}}\n`,
    );
    proxy = new Deno.Command(which("nginx")!, {
      args: ["-p", base, "-c", join(base, "nginx.conf"), "-g", "daemon off;"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    await pollUntil("nginx to listen", async () => {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port: proxyPort })).close();
        return true;
      } catch {
        return undefined;
      }
    });
    const token = (await Deno.readTextFile(join(base, "state", "token"))).trim();
    return { proxyPort, ports, token, env, base, useScript, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
