/**
 * The README's "Running several instances" section, run as written: its settings block replaced by
 * test values (a throw-away PostgreSQL cluster, temp dirs, free ports), every other block
 * verbatim: the `gateway.json`, the start script, the nginx config (with the test's ports) and the
 * curl calls through the proxy.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { MAIN, REPO } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { postgresAvailable, startPostgresCluster } from "./support/postgres_cluster.ts";

const README = join(REPO, "README.md");

function which(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").concat(["/usr/sbin"])) {
    try {
      if (Deno.statSync(join(dir, name)).isFile) return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** The fenced blocks of one README section, in order, with their language. */
function sectionBlocks(text: string, heading: string): { lang: string; body: string }[] {
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

async function bash(script: string, env: Record<string, string>) {
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

const nginx = which("nginx");

Deno.test({
  name: 'README "Running several instances" works as written (PostgreSQL, 3 instances, nginx)',
  ignore: !postgresAvailable() || nginx === null || which("curl") === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
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
      await Deno.writeTextFile(join(base, "root", "gateway.json"), config);

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
      proxy = new Deno.Command(nginx!, {
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

      const used = await bash(useScript.replaceAll("8080", String(proxyPort)), env);
      assert.equal(used.code, 0, used.stderr + used.stdout);
      // The exec answer, then the history (round-robin: from another instance), one a line.
      const [execText, historyText] = used.stdout.split("\n");
      const doc = JSON.parse(execText!) as { ok: boolean; result: unknown; runId: string };
      assert.equal(doc.ok, true, execText);
      assert.equal(doc.result, 42);
      const history = JSON.parse(historyText!) as { runs: { runId: string }[] };
      assert.ok(history.runs.some((r) => r.runId === doc.runId), historyText);
      // The use block ends by stopping every instance.
      for (const port of ports) {
        await assert.rejects(Deno.stat(join(base, "state", String(port), "server.json")));
      }
    } finally {
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
          // stopped by the README's own stop line
        }
      }
      await cluster.stop();
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
