/**
 * A throw-away PostgreSQL cluster for tests: `initdb` in a temp dir, `pg_ctl start` on a free
 * loopback port, removed again by {@linkcode PostgresCluster.stop}. Tests of the PostgreSQL store
 * and of several gateways on one database run against the real server, never a mock.
 *
 * `initdb` refuses to run as root, and CI runs the tests as root: then every PostgreSQL command
 * runs as the unprivileged `postgres` user (`runuser -u postgres -- …`, the account Debian's
 * `postgresql` package creates) and the temp dir is handed to that user with `chown`. As any
 * other user the commands run as that user directly.
 * @module
 */

import { join } from "node:path";

/** A running cluster. */
export interface PostgresCluster {
  /** `postgres://gateway@127.0.0.1:PORT/postgres`: trust authentication, loopback only. */
  url: string;
  port: number;
  /** Stops the server (fast mode) without removing it, to test outages. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port. */
  resume(): Promise<void>;
  /** Stops the server and removes the cluster directory. */
  stop(): Promise<void>;
}

/**
 * Where `initdb` and `pg_ctl` are: on PATH, or under `/usr/lib/postgresql/N/bin` (Debian keeps
 * them there); null when PostgreSQL is not installed.
 */
export function findPostgresBin(): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir !== "" && exists(join(dir, "initdb")) && exists(join(dir, "pg_ctl"))) return dir;
  }
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name)
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = `/usr/lib/postgresql/${version}/bin`;
      if (exists(join(dir, "initdb"))) return dir;
    }
  } catch {
    // not installed
  }
  return null;
}

/** Whether a test needing PostgreSQL can run here (binaries present; as root, a postgres user). */
export function postgresAvailable(): boolean {
  if (findPostgresBin() === null) return false;
  if (Deno.uid() !== 0) return true;
  return runuserUid() !== null;
}

/** Creates and starts a cluster; the caller must `stop()` it. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (bin === null) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const dir = await Deno.makeTempDir({ prefix: "gateway-pg-" });
  const asRoot = Deno.uid() === 0;
  if (asRoot) {
    const uid = runuserUid();
    if (uid === null) throw new Error("Running as root but there is no `postgres` user");
    await Deno.chown(dir, uid.uid, uid.gid);
  }
  const data = join(dir, "data");
  const port = freePort();
  const run = async (args: string[]) => {
    const command = asRoot ? "runuser" : args[0]!;
    const argv = asRoot ? ["-u", "postgres", "--", ...args] : args.slice(1);
    const output = await new Deno.Command(command, { args: argv, stdout: "piped", stderr: "piped" })
      .output();
    if (!output.success) {
      const text = new TextDecoder().decode(output.stderr) +
        new TextDecoder().decode(output.stdout);
      throw new Error(`${args.map((a) => a.split("/").pop()).join(" ")} failed: ${text.trim()}`);
    }
  };
  const start = () =>
    run([
      join(bin, "pg_ctl"),
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-o",
      `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -F -c max_connections=200`,
      "start",
    ]);
  const halt = () => run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]);
  try {
    await run([join(bin, "initdb"), "-D", data, "-U", "gateway", "-A", "trust", "--no-sync"]);
    await start();
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
  let stopped = false;
  return {
    url: `postgres://gateway@127.0.0.1:${port}/postgres`,
    port,
    halt,
    resume: start,
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function runuserUid(): { uid: number; gid: number } | null {
  try {
    const line = Deno.readTextFileSync("/etc/passwd").split("\n")
      .find((l) => l.startsWith("postgres:"));
    if (line === undefined) return null;
    const fields = line.split(":");
    return { uid: Number(fields[2]), gid: Number(fields[3]) };
  } catch {
    return null;
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
