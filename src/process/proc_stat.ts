/**
 * A process's `/proc/PID/stat` line (Linux), as the fields after its command name: the name
 * sits in parentheses and may itself hold spaces and parentheses, so the fields are counted
 * from the last `)`. Index 0 is the state (the line's 3rd field), 2 the process group, 4 the
 * controlling terminal, 19 the start time.
 * @module
 */

/** The fields after the command name, or null when the process is gone or there is no /proc. */
export function procStatFields(pid: number | "self"): string[] | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
