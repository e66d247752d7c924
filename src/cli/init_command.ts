/**
 * `gateway init`: makes `.gateway/{tools,scripts,workflows}` in the current directory with a
 * sample of each, so a project gets its own root in one step.
 * @module
 */

import { join } from "node:path";
import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";

/** Usage text of `gateway init`. */
export const INIT_USAGE = `Usage: gateway init

Creates .gateway/ here with tools/, scripts/ and workflows/ (a sample in each), a
gateway.json and a gateway.env for the variables it references (mode 0600, git-ignored).
Commands run below this directory then use it as their root, with its own gateway server;
a .mcp.json here is served as it is.`;

const SAMPLE_TOOL = `/**
 * Sample tool module: every exported function with 0 or 1 parameter is a tool.
 * @module
 */

/** Arguments of {@linkcode greet}. */
export interface GreetArgs {
  /** Who to greet. */
  name: string;
  /** Shout it. @default false */
  loud?: boolean;
}

/** Greets someone; scripts call it as \`await tools.hello.greet({ name: "Ada" })\`. */
export function greet(args: GreetArgs): { message: string } {
  const message = \`Hello, \${args.name}!\`;
  return { message: args.loud ? message.toUpperCase() : message };
}
`;

/**
 * The sample workflow. Its `description` is quoted: a plain YAML scalar may not hold ": ", and
 * an unquoted one made `gateway workflow start sample` fail on its first try.
 */
const SAMPLE_WORKFLOW =
  `description: "A sample workflow: plan, then implement in a loop, then review."
steps:
  - title: Plan
    prompt: |
      Read the task and write a short plan. This is step {{step}} of {{totalSteps}}.
  - title: Implement
    loop: { min: 1, max: 3 }
    prompt: |
      Implement the next part of the plan (pass {{loop}} of at most {{max}}).
      {{#if (gte loop min)}}The loop may end now, if the plan is done.{{/if}}
  - title: Review
    prompt: Review the change and summarise it.
`;

/** The sample named script: calls the sample tool with its first argument. */
const SAMPLE_SCRIPT = `/**
 * Greets someone through the sample tool (tools/hello.ts).
 *
 * @param name who to greet (first argument)
 * @example gateway run hello World
 */
const who = args[0] ?? "world";
const { message } = await tools.hello.greet({ name: who });
console.log(message);
`;

const SAMPLE_CONFIG = `{
  // gateway.json: see the README for every key.
  "mcpServers": {},
  "exec": { "timeoutMs": 120000 }
}
`;

const SAMPLE_ENV =
  `# gateway.env: NAME=VALUE lines the gateway server reads (and a service unit loads), for
# the \${env:NAME} and \${NAME} references in gateway.json and .mcp.json. Keep it mode 0600
# and out of version control (.gitignore here lists it).
`;

/** Runs `gateway init`. */
export async function initCommand(args: string[], context: CliContext): Promise<number> {
  parseCommandArgs(args, {}, INIT_USAGE); // no flags but --help; refuses any other
  const root = join(context.cwd, ".gateway");
  const files: Array<[string, string]> = [
    [join(root, "tools", "hello.ts"), SAMPLE_TOOL],
    [join(root, "scripts", "hello.ts"), SAMPLE_SCRIPT],
    [join(root, "workflows", "sample.yaml"), SAMPLE_WORKFLOW],
    [join(root, "gateway.json"), SAMPLE_CONFIG],
    [join(root, "gateway.env"), SAMPLE_ENV],
    [join(root, ".gitignore"), "gateway.env\n"],
  ];
  for (const [file, text] of files) {
    await Deno.mkdir(join(file, ".."), { recursive: true });
    try {
      await Deno.writeTextFile(file, text, {
        createNew: true,
        ...(file.endsWith("gateway.env") ? { mode: 0o600 } : {}),
      });
      context.output.out(`created ${file}\n`);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      context.output.out(`kept ${file} (exists)\n`);
    }
  }
  const mcpJson = join(context.cwd, ".mcp.json");
  if (await Deno.stat(mcpJson).then(() => true, () => false)) {
    context.output.out(
      `serving the MCP servers of ${mcpJson} (gateway import .mcp.json copies them into gateway.json)\n`,
    );
  }
  context.output.out(`root ready: try gateway exec 'await tools.hello.greet({ name: "Ada" })'\n`);
  return 0;
}
