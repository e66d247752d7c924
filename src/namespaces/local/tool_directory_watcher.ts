/**
 * Watches `ROOT/tools` and reports tool modules added, changed or removed, so the registry
 * reloads that one namespace. Also decides which files are tool modules at all.
 * @module
 */

import { basename, join } from "node:path";

/** A tool module file: its namespace name (the stem) and absolute path. */
export interface ToolModuleFile {
  name: string;
  file: string;
}

/** One change to a tool module, after debouncing. */
export interface ToolModuleChange extends ToolModuleFile {
  kind: "added" | "changed" | "removed";
}

/** Settings of a {@linkcode ToolDirectoryWatcher}. */
export interface ToolDirectoryWatcherOptions {
  /** Receives each batch of changes (never empty). */
  onChanges: (changes: ToolModuleChange[]) => void;
  /** Quiet time before a batch is reported. @default {100} */
  debounceMs?: number;
  /** How often a missing directory is checked for. @default {1000} */
  pollMs?: number;
  /** Told about watch errors. @default {console} */
  logger?: { warn(message: string): void };
}

/**
 * Whether a file name is a tool module: `*.ts`, but not tests (`*_test.ts`), declaration files,
 * or private helpers and editor droppings (names starting with `_` or `.`).
 */
export function isToolModuleFileName(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith("_test.ts") && !name.endsWith(".d.ts") &&
    !name.startsWith("_") && !name.startsWith(".") && name.length > 3;
}

/** Lists the tool modules in `dir`, sorted by name; empty when the directory does not exist. */
export async function listToolModules(dir: string): Promise<ToolModuleFile[]> {
  const found: ToolModuleFile[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory || !isToolModuleFileName(entry.name)) continue;
      found.push({ name: entry.name.slice(0, -3), file: join(dir, entry.name) });
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What is known about a file, to tell a real change from a touch. */
interface Seen {
  mtime: number;
  size: number;
}

/**
 * Reports tool module changes in one directory. Events are debounced, then each touched file is
 * compared with what was seen before (existence, mtime, size). A directory that does not exist
 * (yet) is polled for; when it disappears, its modules are reported removed.
 *
 * @example
 * ```ts ignore
 * const watcher = new ToolDirectoryWatcher("/root/tools", {
 *   onChanges: (changes) => changes.forEach((c) => console.log(c.kind, c.name)),
 * });
 * const initial = await watcher.start();
 * await watcher.stop();
 * ```
 */
export class ToolDirectoryWatcher {
  #dir: string;
  #options: ToolDirectoryWatcherOptions;
  #logger: { warn(message: string): void };
  /** Inode of the watched directory, to notice it being replaced (removed and re-created). */
  #dirIno: number | null = null;
  #seen = new Map<string, Seen>();
  #dirty = new Set<string>();
  #watcher: Deno.FsWatcher | undefined;
  /** Event loops of watchers (a replaced directory gets a new one); awaited by `stop()`. */
  #loops = new Set<Promise<void>>();
  #debounce: ReturnType<typeof setTimeout> | undefined;
  #poll: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(dir: string, options: ToolDirectoryWatcherOptions) {
    this.#dir = dir;
    this.#options = options;
    this.#logger = options.logger ?? console;
  }

  /** Starts watching; resolves with the modules present now (empty if the directory is missing). */
  async start(): Promise<ToolModuleFile[]> {
    this.#stopped = false;
    this.#seen.clear();
    if (!(await isDirectory(this.#dir))) {
      this.#schedulePoll();
      return [];
    }
    this.#watch();
    await this.#rescan();
    return [...this.#seen.keys()].sort().map((file) => ({ name: stem(file), file }));
  }

  /** Stops watching and drops pending changes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    if (this.#poll !== undefined) clearTimeout(this.#poll);
    this.#debounce = undefined;
    this.#poll = undefined;
    this.#closeWatcher();
    await Promise.all([...this.#loops]);
    await this.#flushing;
  }

  /** Compares the directory with what was seen and records it; returns the differences. */
  async #rescan(): Promise<ToolModuleChange[]> {
    const changes: ToolModuleChange[] = [];
    const present = new Map<string, Seen>();
    for (const module of await listToolModules(this.#dir)) {
      const seen = await statOf(module.file);
      if (seen !== undefined) present.set(module.file, seen);
    }
    for (const file of [...this.#seen.keys()].sort()) {
      if (!present.has(file)) changes.push({ kind: "removed", name: stem(file), file });
    }
    for (const [file, now] of [...present].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const before = this.#seen.get(file);
      if (before === undefined) changes.push({ kind: "added", name: stem(file), file });
      else if (before.mtime !== now.mtime || before.size !== now.size) {
        changes.push({ kind: "changed", name: stem(file), file });
      }
    }
    this.#seen = present;
    return changes;
  }

  #watch(): void {
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(this.#dir, { recursive: false });
    } catch (error) {
      this.#logger.warn(`Cannot watch "${this.#dir}": ${String(error)}`);
      this.#schedulePoll();
      return;
    }
    this.#watcher = watcher;
    try {
      this.#dirIno = Deno.statSync(this.#dir).ino;
    } catch {
      this.#dirIno = null;
    }
    const loop = (async () => {
      try {
        for await (const event of watcher) {
          if (event.kind === "access") continue;
          for (const path of event.paths) {
            if (path === this.#dir || isToolModuleFileName(basename(path))) this.#dirty.add(path);
          }
          this.#scheduleFlush();
        }
      } catch (error) {
        if (!this.#stopped) this.#logger.warn(`Watching "${this.#dir}" failed: ${error}`);
      }
    })();
    this.#loops.add(loop);
    loop.finally(() => this.#loops.delete(loop));
  }

  #closeWatcher(): void {
    try {
      this.#watcher?.close();
    } catch {
      // already closed
    }
    this.#watcher = undefined;
  }

  #scheduleFlush(): void {
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush());
    }, this.#options.debounceMs ?? 100);
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#poll = setTimeout(async () => {
      this.#poll = undefined;
      if (this.#stopped) return;
      if (!(await isDirectory(this.#dir))) {
        this.#schedulePoll();
        return;
      }
      this.#watch();
      this.#report(await this.#rescan());
    }, this.#options.pollMs ?? 1_000);
  }

  async #flush(): Promise<void> {
    if (this.#stopped) return;
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    const changes: ToolModuleChange[] = [];
    const directory = await statDirectory(this.#dir);
    if (directory === undefined) {
      // The directory went away: everything in it is gone; wait for it to come back.
      this.#closeWatcher();
      for (const file of [...this.#seen.keys()].sort()) {
        changes.push({ kind: "removed", name: stem(file), file });
      }
      this.#seen.clear();
      this.#report(changes);
      this.#schedulePoll();
      return;
    }
    if (directory.ino !== this.#dirIno) {
      // Replaced (e.g. a checkout removed and re-created it): the old watch sees nothing more.
      this.#closeWatcher();
      this.#watch();
      this.#report(await this.#rescan());
      return;
    }
    for (const file of dirty.filter((f) => f !== this.#dir).sort()) {
      const now = await statOf(file);
      const before = this.#seen.get(file);
      if (now === undefined) {
        if (before === undefined) continue;
        this.#seen.delete(file);
        changes.push({ kind: "removed", name: stem(file), file });
      } else if (before === undefined) {
        this.#seen.set(file, now);
        changes.push({ kind: "added", name: stem(file), file });
      } else if (before.mtime !== now.mtime || before.size !== now.size) {
        this.#seen.set(file, now);
        changes.push({ kind: "changed", name: stem(file), file });
      }
    }
    this.#report(changes);
  }

  #report(changes: ToolModuleChange[]): void {
    if (changes.length === 0 || this.#stopped) return;
    try {
      this.#options.onChanges(changes);
    } catch (error) {
      this.#logger.warn(`A tool module change listener failed: ${String(error)}`);
    }
  }
}

async function statOf(file: string): Promise<Seen | undefined> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) return undefined;
    return { mtime: info.mtime?.getTime() ?? 0, size: info.size };
  } catch {
    return undefined;
  }
}

async function statDirectory(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    const info = await Deno.stat(path);
    return info.isDirectory ? info : undefined;
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

function stem(file: string): string {
  return basename(file).slice(0, -3);
}
