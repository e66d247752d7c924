import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anchorsOf, checkReferences, headingAnchor, referenceProblems } from "./reference_check.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** The docs the cases cite: one file with two headings. */
const DOCS = new Map([["architecture.md", new Set(["layers", "policy-gate"])]]);

/** The problems of a one-file text `lines` at `src/x.ts`. */
function problemsOf(...lines: string[]): string[] {
  return referenceProblems("src/x.ts", lines.join("\n"), DOCS);
}

// The offending words are built from parts, so this file's own text stays clean.
const CONTRACT = ["SP", "EC"].join("");
const CATALOGUE = ["RELIA", "BILITY"].join("");
const GUIDE = ["STY", "LE"].join("");
/** `docs/NAME` built from parts, for the same reason. */
const doc = (name: string) => ["docs", name].join("/");

Deno.test("every citation of a document outside the repository is named with its file and line", () => {
  const cases: Array<[string, string]> = [
    [`/** The run document (${CONTRACT} §8). */`, `"${CONTRACT}"`],
    [`// a bare mention: ${CONTRACT}.md says so`, `"${CONTRACT}"`],
    [`// (${CONTRACT}: the default for a module)`, `"${CONTRACT}"`],
    [`// translated in one place (${GUIDE} rule 6)`, `"${GUIDE} rule"`],
    [`// see ${GUIDE}.md`, `"${GUIDE}.md"`],
    [`// refuses at once (${CATALOGUE} ${["LOAD", "04"].join("-")})`, `"${CATALOGUE}"`],
    [
      `// bounded in number, bytes and time (${["SEC", "07"].join("-")})`,
      `"${["SEC", "07"].join("-")}"`,
    ],
    [`// no descendant survives (${["SBX", "06"].join("-")})`, `"${["SBX", "06"].join("-")}"`],
  ];
  for (const [line, word] of cases) {
    const problems = problemsOf("const a = 1;", line);
    assert.equal(problems.length >= 1, true, `not flagged: ${line}`);
    assert.match(problems[0]!, new RegExp(`^src/x\\.ts:2: ${word.replace(/[.*]/g, "\\$&")} `));
    assert.match(problems[0]!, /outside the repository|by number/);
  }
});

Deno.test("issue numbers, measurements and size exemptions are named with their file and line", () => {
  const issue = (rest: string) => ["iss", rest].join("");
  const about = (rest: string) => ["≈", rest].join("");
  const exemption = ["Over", "400 lines"].join(" ");
  const cases: Array<[string, string, string]> = [
    [`// costs a turn (${issue("ue 12")}: CPU per run)`, issue("ue 12"), "cites the project's"],
    [`// as ${["Iss", "ue 9"].join("")}, item 4 found`, ["Iss", "ue 9"].join(""), "cites the"],
    [`// the ${issue("ues #3")} list`, issue("ues #3"), "cites the project's"],
    [`// each idle runner holds ${about(" 30 MB")}`, about(" 30 MB"), "carries a measurement"],
    [`// it cost every run ${about("3 ms")}`, about("3 ms"), "carries a measurement"],
    [`// before the parts load (${about(" 100–300 ms")})`, about(" 100–300 ms"), "carries a"],
    [` * (${exemption}: one pass.)`, exemption, "exempts a file"],
  ];
  for (const [line, word, why] of cases) {
    const problems = problemsOf(line);
    assert.equal(problems.length, 1, `${line}: ${problems.join("; ")}`);
    assert.ok(problems[0]!.startsWith(`src/x.ts:1: "${word}" ${why}`), problems[0]);
  }
});

Deno.test("legitimate words are not flagged: identifiers, lower case, public issue URLs, plain prose", () => {
  const clean = [
    `import { GITHUB_${CONTRACT} } from "./support/prism_server.ts";`,
    `const INTRO${CONTRACT}TION_TIMEOUT_MS = 30_000; // INS${"PEC"}TOR too`,
    "// the OpenAPI spec and the MCP specification",
    `const CODE_${GUIDE} = "${GUIDE.toLowerCase()}";`,
    "// Use `readonly T[]` once https://github.com/microsoft/TypeScript/issues/17002 is fixed",
    "// known issues: none; an issue of the upstream is cited by its URL",
    "// a UTF-8 decoder, HTTP/1.1, an SEC-2026 filing, a date 2026-07-28",
    "// cheaper (about half), and ≈ alone is not a measurement",
    "// a file over 1000 lines is read in chunks",
    `// see ${doc("architecture.md#policy-gate")} and ${doc("architecture.md")}`,
  ];
  assert.deepEqual(problemsOf(...clean), []);
});

Deno.test("a citation of docs/ must name a file and heading that exist", () => {
  assert.deepEqual(problemsOf(`// ${doc("architecture.md#layers")}`), []);
  assert.deepEqual(problemsOf(`// ${doc("architecture.md#nowhere")}`), [
    `src/x.ts:1: cites ${doc("architecture.md#nowhere")}, but ${
      doc("architecture.md")
    } has no heading with anchor "#nowhere"`,
  ]);
  assert.deepEqual(problemsOf("", `// ${doc("missing.md#layers")}`), [
    `src/x.ts:2: cites ${doc("missing.md#layers")}, but ${doc("missing.md")} does not exist`,
  ]);
});

Deno.test("headingAnchor() and anchorsOf() give GitHub's anchors, skipping fenced blocks", () => {
  assert.equal(headingAnchor("`CheckFailed`"), "checkfailed");
  assert.equal(headingAnchor("The request path"), "the-request-path");
  assert.equal(headingAnchor("Configuration: `gateway.json`"), "configuration-gatewayjson");
  const anchors = anchorsOf(
    ["# Title", "## Limits", "```sh", "# not a heading", "```", "### Limits", "#### `Timeout`"]
      .join("\n"),
  );
  assert.deepEqual([...anchors], ["title", "limits", "limits-1", "timeout"]);
});

Deno.test("checkReferences() reads every .ts file of src, test, tools and scripts, and no node_modules", async () => {
  const root = await Deno.makeTempDir({ prefix: "reference_check_" });
  const files: Record<string, string> = {
    "docs/architecture.md": "# Architecture\n\n## Layers\n",
    "src/a.ts": `// (${CONTRACT} §2)\n`,
    "test/deep/b_test.ts": `\n// ${doc("architecture.md#gone")}\n`,
    "tools/c.ts": `// ${["Over", "400 lines"].join(" ")}\n`,
    "scripts/d.ts": `// ${["iss", "ue 4"].join("")}\n`,
    "src/ok.ts": `// ${doc("architecture.md#layers")}\n`,
    "src/e.js": `// ${CONTRACT} §2 in a generated bundle is not read\n`,
    "test/node_modules/pkg/f.ts": `// ${["iss", "ue 4"].join("")}\n`,
    "other/g.ts": `// ${CONTRACT} §2 outside the checked folders\n`,
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(dirname(join(root, path)), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    }
    const problems = await checkReferences(root);
    assert.deepEqual(problems.map((p) => p.split(": ")[0]), [
      "src/a.ts:1",
      "test/deep/b_test.ts:2",
      "tools/c.ts:1",
      "scripts/d.ts:1",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the repository itself cites nothing outside it", async () => {
  assert.deepEqual(await checkReferences(REPO), []);
});

Deno.test("Markdown links to repository files must resolve, and the docs folder holds no unrun example", async () => {
  const root = await Deno.makeTempDir({ prefix: "reference_check_md_" });
  const fence = "`".repeat(3);
  const D = doc("");
  const files: Record<string, string> = {
    "README.md": [
      "# Readme",
      `[ok](${D}a.md#part) [url](https://example.com/x.md) [self](#readme)`,
      `[gone](${D}none.md) [bad anchor](${D}a.md#nowhere)`,
    ].join("\n"),
    [`${D}a.md`]: [
      "# A",
      "## Part",
      `${fence}text`,
      "a diagram",
      fence,
      `${fence}sh`,
      "gateway exec '1'",
      fence,
      "[back](../README.md#readme) [sibling](b.md#missing)",
    ].join("\n"),
    [`${D}b.md`]: "# B\n",
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(dirname(join(root, path)), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    }
    assert.deepEqual(await checkReferences(root), [
      `README.md:3: links (${D}none.md), but ${D}none.md does not exist`,
      `README.md:3: links (${D}a.md#nowhere), but ${D}a.md has no heading "#nowhere"`,
      `${D}a.md:6: a \`sh\` block in ${D} is never run: make it a \`text\` block, or move the ` +
      "example to README.md, whose examples test/docs_examples_test.ts runs",
      `${D}a.md:9: links (b.md#missing), but ${D}b.md has no heading "#missing"`,
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
