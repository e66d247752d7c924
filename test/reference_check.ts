/**
 * Keeps the repository explaining itself: no line of a TypeScript file under `src/`, `test/`,
 * `tools/` or `scripts/` (comment or string) points at a document the repository does not
 * contain — the product contract, the style guide or the reliability catalogue kept elsewhere,
 * their rule numbers, or an entry of the project's issue tracker by number — nor carries
 * measurement history (an approximate duration or size) or a file-size exemption, which belong
 * in commit messages. What such a line meant to say is said in place, or cited from `docs/`,
 * and every citation of a file of `docs/` (with its `#anchor`) names a file and heading that
 * exist; so does every link of README.md, AGENTS.md and `docs/` to a file of the repository.
 * A public upstream issue is cited by its URL (`https://github.com/owner/repo/issues/N`), which
 * is allowed: anyone can follow it. `deno task check` runs this through `layer_check.ts`.
 * @module
 */

import { dirname, join, relative } from "node:path";

/** The folders whose TypeScript files are checked, relative to the project root. */
export const CHECKED_DIRS: readonly string[] = ["src", "test", "tools", "scripts"];

/** One pattern a line must not match, and what to do instead. */
interface Forbidden {
  pattern: RegExp;
  why: string;
}

const SAY_IT =
  "say the reason in place, or cite docs/architecture.md, docs/configuration.md, docs/protocol.md or docs/failure-kinds.md";

/**
 * The patterns, written so that this file's own text matches none of them (`SPE[C]` rather
 * than the word itself).
 */
const FORBIDDEN: readonly Forbidden[] = [
  {
    pattern: /(?<![\w$])SPE[C](?![\w$])/,
    why: `cites the product contract, which lives outside the repository: ${SAY_IT}`,
  },
  {
    pattern: /(?<![\w$])STYL[E](?:\.md|\s+rules?\b)/,
    why: `cites the style guide, which lives outside the repository: ${SAY_IT}`,
  },
  {
    pattern: /(?<![\w$])RELIABILIT[Y](?![\w$])/,
    why: `cites the reliability catalogue, which lives outside the repository: ${SAY_IT}`,
  },
  {
    pattern: /\b(?:API|DB|LOAD|MOD|SBX|SEC|SVC|UP)-\d{2}\b/,
    why: `cites a rule of the reliability catalogue by number: ${SAY_IT}`,
  },
  {
    pattern: /\bissues?\s+#?\d+/i,
    why: "cites the project's issue tracker, which lives outside the repository: keep the " +
      "reason, drop the number (a public upstream issue is cited by its URL)",
  },
  {
    pattern: /≈\s*\d[\d.,–-]*(?:\s*[A-Za-zµ×%]+)?/,
    why: "carries a measurement, which goes stale: keep the reason, put the number in a " +
      "commit message or measure it in the bench",
  },
  {
    pattern: /\bOver\s+400\s+lines\b/,
    why: "exempts a file from a size it need not meet: a file's size is a signal, not a quota",
  },
];

/** A file of `docs/` with an optional `#anchor`, as code cites the repository's documents. */
const DOC_CITATION = /\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g;

/**
 * GitHub's anchor of a Markdown heading: lower case, punctuation but `-` and `_` dropped,
 * spaces as `-`.
 */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

/** The anchors of a Markdown text's headings (a repeated heading gets `-1`, `-2`, …). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = headingAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * The problems of one file's text, each as `path:line: what is wrong`. `docs` maps each file
 * of `docs/` to its anchors; a citation of a missing file or anchor is a problem.
 */
export function referenceProblems(
  path: string,
  text: string,
  docs: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const problems: string[] = [];
  text.split("\n").forEach((line, index) => {
    const where = `${path}:${index + 1}`;
    for (const { pattern, why } of FORBIDDEN) {
      const match = pattern.exec(line);
      if (match) problems.push(`${where}: "${match[0]}" ${why}`);
    }
    for (const [cited, file, anchor] of line.matchAll(DOC_CITATION)) {
      const anchors = docs.get(file!);
      if (anchors === undefined) {
        problems.push(`${where}: cites ${cited}, but docs/${file} does not exist`);
      } else if (anchor !== undefined && !anchors.has(anchor)) {
        problems.push(
          `${where}: cites ${cited}, but docs/${file} has no heading with anchor "#${anchor}"`,
        );
      }
    }
  });
  return problems;
}

/** The anchors of every Markdown file in `root/docs`, by file name. */
export async function docAnchors(root: string): Promise<Map<string, Set<string>>> {
  const docs = new Map<string, Set<string>>();
  try {
    for await (const entry of Deno.readDir(join(root, "docs"))) {
      if (!entry.isFile || !entry.name.endsWith(".md")) continue;
      docs.set(entry.name, anchorsOf(await Deno.readTextFile(join(root, "docs", entry.name))));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return docs;
}

/** The `.ts` files under `dir` (paths relative to `root`), skipping `node_modules`. */
async function* typeScriptFiles(root: string, dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => a.name < b.name ? -1 : 1)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") yield* typeScriptFiles(root, path);
    else if (entry.isFile && entry.name.endsWith(".ts")) yield path;
  }
}

/** A Markdown link to a file of the repository: `[text](path#anchor)`, not a URL. */
const MARKDOWN_LINK = /\]\((?![a-z]+:|#|…)([^)\s#]*)(?:#([\w-]+))?\)/g;

/** Fenced-block languages `docs/` may hold: none is run by `test/docs_examples_test.ts`. */
const DOC_FENCES: ReadonlySet<string> = new Set(["text"]);

/**
 * The problems of one Markdown file at `path` (relative to `root`): a link to a repository
 * file that does not exist or to a heading it does not have; and, in `docs/`, a fenced block
 * other than `text`, since only README.md's and AGENTS.md's examples are run.
 */
export async function markdownProblems(root: string, path: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(root, path));
  const problems: string[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const where = `${path}:${index + 1}`;
    const fence = /^```(\w*)/.exec(line);
    if (fence && fence[1] !== "" && path.startsWith("docs/") && !DOC_FENCES.has(fence[1]!)) {
      problems.push(
        `${where}: a \`${fence[1]}\` block in docs/ is never run: make it a \`text\` block, ` +
          `or move the example to README.md, whose examples test/docs_examples_test.ts runs`,
      );
    }
    for (const [link, target, anchor] of line.matchAll(MARKDOWN_LINK)) {
      const file = target === "" ? path : join(dirname(path), target!);
      let markdown: string | null = null;
      try {
        markdown = await Deno.readTextFile(join(root, file));
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        problems.push(`${where}: links ${link.slice(1)}, but ${file} does not exist`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(markdown).has(anchor)) {
        problems.push(`${where}: links ${link.slice(1)}, but ${file} has no heading "#${anchor}"`);
      }
    }
  }
  return problems;
}

/** Every reference problem of the project at `root`; empty when the tree is clean. */
export async function checkReferences(root: string): Promise<string[]> {
  const docs = await docAnchors(root);
  const problems: string[] = [];
  const markdown = [
    "README.md",
    "AGENTS.md",
    ...[...docs.keys()].sort().map((name) => `docs/${name}`),
  ];
  for (const path of markdown) {
    try {
      problems.push(...await markdownProblems(root, path));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  for (const dir of CHECKED_DIRS) {
    for await (const path of typeScriptFiles(root, dir)) {
      const text = await Deno.readTextFile(join(root, path));
      problems.push(...referenceProblems(relative(root, join(root, path)), text, docs));
    }
  }
  return problems;
}
