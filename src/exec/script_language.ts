/**
 * Which language a parsed script runs as. A script with no TypeScript in it runs as a `.js`
 * file: Deno then neither compiles it nor writes a compiled copy into its cache, which cost
 * every run time before its first line and CPU. Most snippets a model writes (`1 + 1`, chained tool calls) are
 * plain JavaScript.
 * @module
 */

import type Ts from "typescript";

type TypeScript = typeof Ts;

/**
 * TypeScript's record of the syntax a subtree holds, kept on every node as it is parsed
 * (`node.transformFlags`): the bits its own emitter reads to decide which transforms a file
 * needs. Not in its public typings; read here because a walk of our own would have to list
 * every TypeScript-only form and would miss new ones. `script_language_test.ts` pins the
 * forms, so a TypeScript that changed them fails there.
 */
interface TransformFlagsApi {
  TransformFlags?: {
    ContainsTypeScript?: number;
    ContainsDecorators?: number;
    ContainsESNext?: number;
  };
}

/**
 * Whether `file` (parsed without syntax errors) means the same as JavaScript: true only
 * when it holds
 * - no TypeScript syntax (annotations, generics, `as`, `!`, enums, `declare`, modifiers …);
 * - no decorators and nothing newer than what V8 runs as is (`using`, and `accessor` fields,
 *   which Deno compiles for a `.ts` file and V8 would refuse in a `.js` one);
 * - no import or export, whose names may be types that only TypeScript's rules erase.
 *
 * False whenever TypeScript does not keep the flags this reads: the script then runs as
 * TypeScript, as before.
 */
export function runsAsJavaScript(ts: TypeScript, file: Ts.SourceFile): boolean {
  const names = (ts as TypeScript & TransformFlagsApi).TransformFlags;
  const flags = (file as Ts.SourceFile & { transformFlags?: unknown }).transformFlags;
  if (
    typeof flags !== "number" || names?.ContainsTypeScript === undefined ||
    names.ContainsDecorators === undefined || names.ContainsESNext === undefined
  ) {
    return false;
  }
  const compiled = names.ContainsTypeScript | names.ContainsDecorators | names.ContainsESNext;
  if ((flags & compiled) !== 0) return false;
  if (/\baccessor\b/.test(file.text)) return false;
  return !file.statements.some((statement) =>
    ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ||
    ts.isExportAssignment(statement) || ts.isImportEqualsDeclaration(statement) ||
    (ts.canHaveModifiers(statement) &&
      (ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ??
        false))
  );
}
