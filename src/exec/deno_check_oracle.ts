/**
 * The types of Deno's Node built-ins (`node:fs` …) for the script checker: Deno embeds its own
 * `@types/node`, which `deno types` does not print. A script that imports `node:` modules (and
 * nothing else from outside) is therefore also checked by `deno check` itself, with the script
 * globals as an ambient types file, so its Node calls are typed exactly as `deno check` types
 * them.
 * @module
 */

import { join } from "node:path";
import type { Diagnostic } from "../protocol/run_document.ts";

/** What {@linkcode denoCheckScript} needs. */
export interface DenoCheckOptions {
  /** The code to check (the prepared script). */
  code: string;
  /** Ambient declarations the code may use (the script globals and the result hook). */
  globals: string;
  /** A directory for the temporary files (removed afterwards). */
  scratchDir: string;
  /** @default {Deno.execPath()} */
  denoPath?: string;
  /** @default {6000} */
  timeoutMs?: number;
}

const IMPORT_PATTERN =
  /\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']|\bimport\s+["']([^"']+)["']/g;

/**
 * Whether `code` imports `node:` built-ins and nothing else from outside the script (no
 * `npm:`, remote or relative module), so `deno check` can type it without fetching anything.
 */
export function importsOnlyNodeBuiltins(code: string): boolean {
  const specifiers = [...code.matchAll(IMPORT_PATTERN)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  return specifiers.length > 0 && specifiers.every((s) => s.startsWith("node:"));
}

/**
 * Runs `deno check` (remote and npm imports off) on the code with the globals as an ambient
 * types file, and answers its errors in the code at 1-based lines and columns of the code.
 * Implicit-`any` errors (TS7xxx) are dropped, as the in-memory checker drops them. Answers null
 * when `deno check` could not be run or timed out (the in-memory check then stands alone).
 */
export async function denoCheckScript(options: DenoCheckOptions): Promise<Diagnostic[] | null> {
  await Deno.mkdir(options.scratchDir, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: options.scratchDir, prefix: "check-" });
  try {
    await Deno.writeTextFile(join(dir, "globals.d.ts"), options.globals);
    await Deno.writeTextFile(join(dir, "script.ts"), options.code);
    await Deno.writeTextFile(
      join(dir, "deno.json"),
      JSON.stringify({
        lock: false,
        compilerOptions: {
          strict: true,
          useUnknownInCatchVariables: false,
          types: ["./globals.d.ts"],
        },
      }),
    );
    let output: Deno.CommandOutput;
    try {
      output = await new Deno.Command(options.denoPath ?? Deno.execPath(), {
        args: ["check", "--quiet", "--no-remote", "--no-npm", "--config", "deno.json", "script.ts"],
        cwd: dir,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 6000),
      }).output();
    } catch {
      return null;
    }
    if (output.success) return [];
    const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    const diagnostics = parseDenoCheckOutput(text, join(dir, "script.ts"));
    // A failure with no error in the script (a crash, a bad config) proves nothing.
    return diagnostics.length > 0 || !/TS\d+ \[ERROR\]/.test(text) ? diagnostics : null;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  }
}

/** Reads `deno check` errors (`TS2322 [ERROR]: message … at file:///…/script.ts:2:7`). */
export function parseDenoCheckOutput(text: string, scriptPath: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const pattern = /TS(\d+) \[ERROR\]: ([^\n]*)[\s\S]*?\n\s+at file:\/\/([^\s]+):(\d+):(\d+)/g;
  for (const match of text.matchAll(pattern)) {
    const code = Number(match[1]);
    if (code >= 7000 && code < 7100) continue;
    if (decodeURIComponent(match[3]!) !== scriptPath) continue;
    diagnostics.push({
      message: match[2]!.trim(),
      line: Number(match[4]),
      column: Number(match[5]),
      code,
    });
  }
  return diagnostics;
}
