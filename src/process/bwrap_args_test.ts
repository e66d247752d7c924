import assert from "node:assert/strict";
import { bwrapArgs, type HostPaths, type PathKind } from "./bwrap_args.ts";
import type { SandboxView } from "./sandbox_view.ts";

/** A host file system from a list of paths (`/usr/`-style dirs end in `/`, `a -> b` links). */
function host(entries: string[]): HostPaths {
  const kinds = new Map<string, PathKind>();
  const links = new Map<string, string>();
  for (const entry of entries) {
    const [path, target] = entry.split(" -> ");
    if (target !== undefined) {
      kinds.set(path!, "symlink");
      links.set(path!, target);
    } else if (path!.endsWith("/")) kinds.set(path!.slice(0, -1) || "/", "dir");
    else kinds.set(path!, "file");
  }
  return {
    kind: (path) => kinds.get(path) ?? null,
    readLink: (path) => links.get(path)!,
  };
}

const HOST = host([
  "/",
  "/usr/",
  "/etc/",
  "/bin -> usr/bin",
  "/lib -> usr/lib",
  "/root/",
  "/root/.ssh/",
  "/root/project/",
  "/root/.cache/deno/",
  "/root/.cache/deno/location_data/",
  "/home/",
  "/tmp/",
  "/tmp/gateway-0/",
  "/tmp/gateway-0/h/runs-1/3/",
  "/tmp/shared/",
  "/data/",
  "/data/token",
  "/opt/deno/",
]);

function view(overrides: Partial<SandboxView>): SandboxView {
  return {
    read: [],
    write: [],
    hidden: ["/data", "/tmp/gateway-0"],
    private: ["/root", "/home", "/tmp"],
    masked: [],
    own: ["/opt/deno", "/tmp/gateway-0/h/runs-1/3", "/root/.cache/deno"],
    ownWritable: [],
    scratch: ["/root/.cache/deno/location_data"],
    net: false,
    cwd: "/root/project",
    ...overrides,
  };
}

/** The mounts in order, as `op dest` (binds name their destination). */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--ro-bind" || arg === "--bind" || arg === "--symlink") {
      out.push(`${arg} ${args[i + 2]}`);
      i += 2;
    } else if (arg === "--tmpfs" || arg === "--dir" || arg === "--proc" || arg === "--dev") {
      out.push(`${arg} ${args[i + 1]}`);
      i += 1;
    }
  }
  return out;
}

Deno.test("bwrapArgs() with no grant shows the system, the process's own files and nothing else", () => {
  const args = bwrapArgs(view({}), HOST);
  for (
    const flag of ["--die-with-parent", "--unshare-pid"]
  ) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(args.includes("--unshare-net"), "no network: a network namespace of its own");
  assert.deepEqual(mounts(args), [
    "--ro-bind /usr",
    "--ro-bind /etc",
    "--symlink /bin",
    "--symlink /lib",
    "--proc /proc",
    "--dev /dev",
    "--tmpfs /tmp",
    "--ro-bind /opt/deno",
    "--ro-bind /tmp/gateway-0/h/runs-1/3",
    "--ro-bind /root/.cache/deno",
    "--tmpfs /root/.cache/deno/location_data",
    "--dir /root/project",
  ]);
  assert.deepEqual(args.slice(-2), ["--chdir", "/root/project"]);
});

Deno.test("bwrapArgs() under --allow-read=/ hides the data dir, homes and temp dirs, then shows the own files", () => {
  const args = bwrapArgs(view({ read: true, net: true }), HOST);
  assert.ok(!args.includes("--unshare-net"), "network granted: the host's network");
  assert.deepEqual(mounts(args), [
    "--ro-bind /",
    "--proc /proc",
    "--dev /dev",
    "--tmpfs /data",
    "--tmpfs /home",
    "--tmpfs /root",
    "--tmpfs /tmp",
    "--ro-bind /opt/deno",
    "--ro-bind /tmp/gateway-0/h/runs-1/3",
    "--ro-bind /root/.cache/deno",
    "--tmpfs /root/.cache/deno/location_data",
    "--dir /root/project",
  ]);
});

Deno.test("bwrapArgs() shows a grant inside a private directory, never one inside a hidden one", () => {
  const args = bwrapArgs(
    view({ read: ["/root/project", "/data/token"], write: ["/tmp/shared/out.txt"] }),
    HOST,
  );
  const shown = mounts(args);
  assert.ok(shown.includes("--ro-bind /root/project"));
  // A file to be created is shown through its nearest existing parent, writable.
  assert.ok(shown.includes("--bind /tmp/shared"));
  assert.ok(!shown.some((m) => m.includes("/data")), shown.join("\n"));
  assert.ok(shown.indexOf("--tmpfs /tmp") < shown.indexOf("--bind /tmp/shared"));
  assert.ok(!shown.includes("--dir /root/project"), "the granted cwd exists inside");
});

Deno.test("bwrapArgs() masks secrets last, whatever shows them, and shows nothing for a missing grant", () => {
  const args = bwrapArgs(
    view({
      read: true,
      write: true,
      hidden: ["/tmp/gateway-0"],
      private: [],
      masked: ["/data/token", "/data/missing"],
      own: [],
      ownWritable: ["/tmp/gateway-0/h/runs-1/3"],
      scratch: [],
    }),
    HOST,
  );
  const shown = mounts(args);
  assert.equal(shown[0], "--bind /");
  assert.equal(shown.at(-1), "--ro-bind /data/token", shown.join("\n"));
  assert.ok(!shown.includes("--ro-bind /data/missing"));
  assert.ok(
    shown.indexOf("--tmpfs /tmp/gateway-0") < shown.indexOf("--bind /tmp/gateway-0/h/runs-1/3"),
  );
  const noGrant = mounts(bwrapArgs(view({ read: ["/nowhere/at/all"] }), HOST));
  assert.ok(!noGrant.includes("--ro-bind /"), "a missing grant never shows the root");
});

Deno.test("bwrapArgs() bounds each scratch directory when the view says how much it holds", () => {
  const args = bwrapArgs(view({ scratchMaxBytes: 4096 }), HOST);
  const at = args.indexOf("/root/.cache/deno/location_data");
  assert.deepEqual(args.slice(at - 3, at + 1), [
    "--size",
    "4096",
    "--tmpfs",
    "/root/.cache/deno/location_data",
  ]);
  assert.ok(!bwrapArgs(view({}), HOST).includes("--size"), "no bound: the system's default");
});
