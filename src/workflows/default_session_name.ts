/**
 * Workflow session names: the default one of a working directory (one session per
 * directory unless the caller names one) and what a name may hold.
 * @module
 */

import { createHash } from "node:crypto";
import { basename, resolve } from "node:path";
import { WorkflowError } from "./workflow_error.ts";

/**
 * The session name a directory uses when the caller names none (`project-1a2b3c4d`): the
 * folder's name for people, and a hash of its full path so two `project` folders differ.
 */
export function defaultSessionName(cwd: string): string {
  const full = resolve(cwd);
  const folder = basename(full).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40) || "root";
  return `${folder}-${createHash("sha256").update(full).digest("hex").slice(0, 8)}`;
}

/**
 * Returns `session` when it is 1 to 200 printable characters, else throws a `BadArgument`
 * {@linkcode WorkflowError}: names end up in hints the agent copies into a shell.
 */
export function checkSessionName(session: string): string {
  const printable = [...session].every((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code >= 0x20 && code !== 0x7f;
  });
  if (!printable || session.trim() === "" || session.length > 200) {
    throw new WorkflowError(
      "BadArgument",
      `Cannot use session name ${
        JSON.stringify(session)
      }: it must be 1 to 200 printable characters`,
    );
  }
  return session;
}
