/**
 * The gateway's token: 256 random bits in `DATA_DIR/token`, mode 0600, created on first start.
 * A token file others can read is refused, not silently fixed.
 * @module
 */

/** Path of the token file in a data dir. */
export function tokenPath(dataDir: string): string {
  // A plain join: `node:path` would be the only `node:` module the CLI's exec fast path loads.
  return `${dataDir.replace(/[\\/]+$/, "")}/token`;
}

/** Reads the token, creating it (and a 0700 data dir) when absent. */
export async function ensureToken(dataDir: string): Promise<string> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = tokenPath(dataDir);
  try {
    return await readToken(dataDir);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const token = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  try {
    await Deno.writeTextFile(path, token + "\n", { mode: 0o600, createNew: true });
  } catch (error) {
    // Another process created it first: use theirs.
    if (error instanceof Deno.errors.AlreadyExists) return await readToken(dataDir);
    throw error;
  }
  return token;
}

/** Reads an existing token, refusing a file that group or others can read. */
export async function readToken(dataDir: string): Promise<string> {
  const path = tokenPath(dataDir);
  refuseOpenMode(path, await Deno.stat(path));
  return validToken(path, await Deno.readTextFile(path));
}

/**
 * {@linkcode readToken} with synchronous reads, for the CLI's `exec` fast path: there its two
 * asynchronous file ops cost more than the reads (each waits on Deno's blocking thread pool).
 */
export function readTokenSync(dataDir: string): string {
  const path = tokenPath(dataDir);
  refuseOpenMode(path, Deno.statSync(path));
  return validToken(path, Deno.readTextFileSync(path));
}

function refuseOpenMode(path: string, info: Deno.FileInfo): void {
  if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new Error(
      `Token file "${path}" is readable by others (mode ${(info.mode & 0o777).toString(8)}): ` +
        `run chmod 600 "${path}" or delete it to make a new one`,
    );
  }
}

function validToken(path: string, text: string): string {
  const token = text.trim();
  if (token.length < 32) {
    throw new Error(`Token file "${path}" is too short: delete it to make a new one`);
  }
  return token;
}
