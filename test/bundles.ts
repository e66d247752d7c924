/**
 * The generated one-file bundles the repository commits, built by one task (`deno task
 * bundle`) and checked by `deno task check` (`--check`): a bundle is what runs, so the one
 * committed must be what `deno bundle` makes of its sources now, or the code that runs is not
 * the code that was reviewed.
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** One committed bundle: its entry, where it is written, and the `deno bundle` flags. */
export interface Bundle {
  entry: string;
  output: string;
  flags: readonly string[];
  /** Why it is bundled, shown by `deno task bundle`. */
  why: string;
}

/** Every bundle the repository commits, paths relative to its root. */
export const BUNDLES: readonly Bundle[] = [
  {
    entry: "src/exec/runner/runner_main.ts",
    output: "src/exec/runner/runner_main.bundle.js",
    flags: ["--no-config"],
    why: "every run starts from it: one file costs a run less CPU than ten modules",
  },
  {
    entry: "src/exec/runner/runner_discovery.ts",
    output: "src/exec/runner/runner_discovery.bundle.js",
    flags: ["--no-config"],
    why: "search()/describe(), loaded only by a run whose script uses them",
  },
  {
    entry: "src/cli/fast_main.ts",
    output: "src/cli/fast_main.bundle.js",
    flags: ["--no-config"],
    why: "the installed command's entry, run without deno.json",
  },
  {
    entry: "src/server/ui/editor_entry.js",
    output: "src/server/ui/static/editor.js",
    // CodeMirror is a build-time package: the tests' lock pins it, the product's does not.
    flags: ["--lock", "test/deno.lock", "--minify", "--platform", "browser"],
    why: "the dashboard's editor, served by the gateway (never from a CDN)",
  },
];

/** The repository's root directory. */
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Bundles `bundle.entry` into `output` (absolute); throws with deno's stderr on failure. */
export async function buildBundle(bundle: Bundle, output: string): Promise<void> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", ...bundle.flags, "-o", output, bundle.entry],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (built.code !== 0) {
    throw new Error(
      `deno bundle of ${bundle.entry} failed (exit ${built.code}): ` +
        new TextDecoder().decode(built.stderr),
    );
  }
}

/**
 * Builds every bundle into a scratch directory and returns one message per committed bundle
 * that differs; empty when all are fresh.
 */
export async function staleBundles(bundles: readonly Bundle[] = BUNDLES): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "bundles_" });
  try {
    const stale = await Promise.all(bundles.map(async (bundle, index) => {
      const fresh = join(dir, `${index}.js`);
      await buildBundle(bundle, fresh);
      let committed: string | null;
      try {
        committed = await Deno.readTextFile(join(ROOT, bundle.output));
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        committed = null;
      }
      if (committed === await Deno.readTextFile(fresh)) return null;
      return `${bundle.output} is ${
        committed === null ? "missing" : "stale"
      } (not what ${bundle.entry} and its imports build now): run \`deno task bundle\` and ` +
        `commit the result`;
    }));
    return stale.filter((message) => message !== null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const unknown = Deno.args.filter((arg) => arg !== "--check");
  if (unknown.length > 0) {
    console.error(`bundles: unknown argument "${unknown[0]}" (usage: bundles.ts [--check])`);
    Deno.exit(2);
  }
  if (Deno.args.includes("--check")) {
    const stale = await staleBundles();
    for (const message of stale) console.error(`bundle check: ${message}`);
    if (stale.length > 0) Deno.exit(1);
    console.error(`bundle check: ${BUNDLES.length} bundles fresh`);
  } else {
    await Promise.all(BUNDLES.map((bundle) => buildBundle(bundle, join(ROOT, bundle.output))));
    for (const bundle of BUNDLES) console.error(`wrote ${bundle.output}: ${bundle.why}`);
  }
}
