/**
 * Path arithmetic on strings — resolve, dirname, basename, join — for POSIX and Windows paths,
 * with no `node:` module: the CLI resolves its root and data dir on every start, including the
 * `gateway exec` fast path, where the first import of `node:path` costs more than the rest of
 * that process's work. Pure functions; nothing here touches the file system.
 * @module
 */

/** The path operations of one platform. */
export interface PathText {
  /** The separator paths are written with (`/`, or `\` on Windows). */
  readonly sep: string;
  /** The list separator of variables such as `PATH` (`:`, or `;` on Windows). */
  readonly delimiter: string;
  isAbsolute(path: string): boolean;
  /** `path` made absolute against `base` and normalised: no `.`/`..`, no trailing separator. */
  resolve(base: string, path: string): string;
  /** The directory of `path` (the root is its own directory). */
  dirname(path: string): string;
  /** The last segment of `path`. */
  basename(path: string): string;
  /** `parts` joined with the separator, normalised (relative stays relative). */
  join(...parts: string[]): string;
}

/** The root of an absolute Windows path (`C:\`, `\\server\share\`), or "" when relative. */
function windowsRoot(path: string): string {
  const unc = /^[\\/]{2}[^\\/]+[\\/][^\\/]+[\\/]?/.exec(path);
  if (unc) return unc[0].replace(/[\\/]/g, "\\").replace(/\\?$/, "\\");
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return `${path[0]!.toUpperCase()}:\\`;
  return "";
}

function normalise(root: string, rest: string, separators: RegExp, sep: string): string {
  const parts: string[] = [];
  for (const part of rest.split(separators)) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return root + parts.join(sep);
}

const POSIX: PathText = {
  sep: "/",
  delimiter: ":",
  isAbsolute: (path) => path.startsWith("/"),
  resolve: (base, path) =>
    normalise("/", path.startsWith("/") ? path : `${base}/${path}`, /\/+/, "/"),
  dirname(path) {
    const trimmed = path.replace(/\/+$/, "");
    const at = trimmed.lastIndexOf("/");
    if (at < 0) return path.startsWith("/") ? "/" : ".";
    return at === 0 ? "/" : trimmed.slice(0, at);
  },
  basename: (path) => {
    const trimmed = path.replace(/\/+$/, "");
    return trimmed.slice(trimmed.lastIndexOf("/") + 1);
  },
  join: (...parts) => {
    const joined = parts.filter((p) => p !== "").join("/");
    const absolute = joined.startsWith("/");
    const normal = normalise(absolute ? "/" : "", joined, /\/+/, "/");
    return normal === "" ? "." : normal;
  },
};

const WINDOWS: PathText = {
  sep: "\\",
  delimiter: ";",
  isAbsolute: (path) => windowsRoot(path) !== "",
  resolve(base, path) {
    const full = windowsRoot(path) !== ""
      ? path
      : /^[\\/]/.test(path)
      ? `${windowsRoot(base)}${path}`
      : `${base}\\${path}`;
    const root = windowsRoot(full);
    return normalise(root, full.slice(root.length), /[\\/]+/, "\\");
  },
  dirname(path) {
    const root = windowsRoot(path);
    const rest = path.slice(root.length).replace(/[\\/]+$/, "");
    const at = Math.max(rest.lastIndexOf("\\"), rest.lastIndexOf("/"));
    return at < 0 ? (root || ".") : root + rest.slice(0, at);
  },
  basename(path) {
    const rest = path.slice(windowsRoot(path).length).replace(/[\\/]+$/, "");
    return rest.slice(Math.max(rest.lastIndexOf("\\"), rest.lastIndexOf("/")) + 1);
  },
  join(...parts) {
    const joined = parts.filter((p) => p !== "").join("\\");
    const root = windowsRoot(joined);
    const normal = normalise(root, joined.slice(root.length), /[\\/]+/, "\\");
    return normal === "" ? "." : normal;
  },
};

/** The path operations of `os` (this platform's by default). */
export function pathText(os: typeof Deno.build.os = Deno.build.os): PathText {
  return os === "windows" ? WINDOWS : POSIX;
}

/** A `file:` URL's path, without `node:url` (whose import loads the Node compatibility layer). */
export function filePathOf(url: URL, os: typeof Deno.build.os = Deno.build.os): string {
  const path = decodeURIComponent(url.pathname);
  return os === "windows" ? path.slice(1).replaceAll("/", "\\") : path;
}
