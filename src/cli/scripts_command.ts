/**
 * `gateway scripts`: named scripts with their descriptions and examples; `scripts init NAME`
 * writes a new one from a template.
 * @module
 */

import { dirname, join } from "node:path";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";

/** Usage text of `gateway scripts`. */
export const SCRIPTS_USAGE = `Usage: gateway scripts [--json]
       gateway scripts init NAME

Lists ROOT/scripts/**.ts with the description, @example and @param lines of their leading JSDoc.`;

/** The template `scripts init` writes. */
export function scriptTemplate(name: string): string {
  return `/**
 * Describe what ${name} does in one sentence.
 *
 * @param name who to greet (first argument)
 * @example gateway run ${name} World
 */
const who = args[0] ?? "world";
// Call this root's tools here (gateway tools lists them): await tools.NS.TOOL({ … })
console.log(\`Hello, \${who}!\`);
`;
}

/** Runs `gateway scripts`. */
export async function scriptsCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(args, { booleans: ["json"] }, SCRIPTS_USAGE);
  const [verb, name] = parsed.positionals;
  if (verb === "init") {
    if (!name || !/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(name)) {
      throw new UsageError(
        `scripts init needs a NAME of letters, digits, _ and - (got "${name ?? ""}")`,
        SCRIPTS_USAGE,
      );
    }
    const file = join(context.root.dir, "scripts", `${name}.ts`);
    await Deno.mkdir(dirname(file), { recursive: true });
    try {
      await Deno.writeTextFile(file, scriptTemplate(name), { createNew: true });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new UsageError(`Script "${file}" exists already`, SCRIPTS_USAGE);
      }
      throw error;
    }
    context.output.out(`created ${file}\nrun it with: gateway run ${name}\n`);
    return 0;
  }
  if (verb !== undefined) throw new UsageError(`Unknown scripts command "${verb}"`, SCRIPTS_USAGE);
  return await context.withClient(async ({ client }) => {
    const answer = await client.request<
      {
        scripts: Array<
          {
            name: string;
            description: string;
            examples: string[];
            params: Array<{ name: string; description: string }>;
          }
        >;
      }
    >("scripts", {});
    if (parsed.flags.json) {
      context.output.out(`${JSON.stringify(answer, null, 2)}\n`);
      return 0;
    }
    for (const s of answer.scripts) {
      context.output.out(`${s.name}\n`);
      if (s.description) context.output.out(`    ${s.description.split("\n")[0]}\n`);
      for (const p of s.params) context.output.out(`    arg ${p.name}: ${p.description}\n`);
      for (const e of s.examples) context.output.out(`    e.g. ${e}\n`);
    }
    if (answer.scripts.length === 0) {
      context.output.out(`no scripts (gateway scripts init NAME makes one)\n`);
    }
    return 0;
  });
}
