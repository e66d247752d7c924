/**
 * Turns a {@linkcode SandboxView} into a macOS Seatbelt profile for `sandbox-exec -p`. Seatbelt
 * has no empty root to build from: the profile allows what the system needs by default and
 * takes away the private directories (homes, temp dirs) except the grants inside them, every
 * write but the grants, the hidden directories and masked files whatever a grant says, and the
 * network when the view has none (unix sockets still connect). Seatbelt checks the path a
 * symlink resolves to, so a link inside a grant reaches nothing the profile takes away. Later
 * rules win over earlier ones. macOS has no PID namespace and no parent-death signal: a runner
 * there ends when its channel closes, and a busy one when the next server reaps it.
 * @module
 */

import { type SandboxView, within } from "./sandbox_view.ts";

/** A Seatbelt string literal (the profile language reads `\\` and `\"` escapes). */
export function seatbeltString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function subpaths(paths: readonly string[]): string {
  return paths.map((path) => `(subpath ${seatbeltString(path)})`).join(" ");
}

function literals(paths: readonly string[]): string {
  return paths.map((path) => `(literal ${seatbeltString(path)})`).join(" ");
}

/** Writes every process needs whatever its grants (the null device, its terminal descriptors). */
const DEVICE_WRITES = ["/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty"];

/** The `sandbox-exec -p` profile showing `view`. */
export function sandboxExecProfile(view: SandboxView): string {
  const lines = ["(version 1)", "(allow default)"];
  const insidePrivate = (path: string) => view.private.some((dir) => within(path, dir));
  if (view.private.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(view.private)})`);
  }
  if (view.write !== true) {
    lines.push("(deny file-write*)");
    lines.push(`(allow file-write* ${literals(DEVICE_WRITES)} (subpath "/dev/fd"))`);
    if (view.write.length > 0) lines.push(`(allow file-write* ${subpaths(view.write)})`);
  }
  const readsInside = view.read === true ? [] : view.read.filter(insidePrivate);
  const writesInside = view.write === true ? [] : view.write.filter(insidePrivate);
  if (readsInside.length > 0) lines.push(`(allow file-read* ${subpaths(readsInside)})`);
  if (writesInside.length > 0) {
    lines.push(`(allow file-read* file-write* ${subpaths(writesInside)})`);
  }
  if (view.hidden.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(view.hidden)})`);
  }
  if (view.own.length > 0) lines.push(`(allow file-read* ${subpaths(view.own)})`);
  const writable = [...view.ownWritable, ...view.scratch];
  if (writable.length > 0) lines.push(`(allow file-read* file-write* ${subpaths(writable)})`);
  if (view.masked.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(view.masked)})`);
  }
  if (!view.net) {
    lines.push("(deny network*)");
    lines.push("(allow network-outbound (remote unix-socket))");
  }
  return lines.join("\n");
}
