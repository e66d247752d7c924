/**
 * Reads a tool module's exports with ts-morph into tool descriptors plus the declarations their
 * types need. CPU-heavy: only the signature worker imports it.
 * @module
 */

import {
  type FunctionDeclaration,
  type JSDoc,
  Node,
  Project,
  type SourceFile,
  type Symbol as MorphSymbol,
  ts,
  type Type,
} from "ts-morph";
import type { ToolDescriptor } from "../namespace.ts";

/** One tool found in a module, with what the host needs to call it. */
export interface ExtractedTool {
  descriptor: ToolDescriptor;
  /**
   * True when a call without an argument must pass `{}`: the parameter itself is required but
   * every property of its object type is optional, so `tools.ns.list()` must still work.
   */
  passEmptyObject: boolean;
}

/** The result of reading one module; plain JSON so it can cross the worker boundary and disk. */
export type ExtractionOutcome =
  | { ok: true; tools: ExtractedTool[]; declarations: string; warnings: string[] }
  | { ok: false; reason: string; line?: number };

/** Anything with a call signature ts-morph can describe: a declaration or an arrow/function. */
type FunctionLike = Node & {
  getParameters(): ReturnType<FunctionDeclaration["getParameters"]>;
  getReturnTypeNode(): ReturnType<FunctionDeclaration["getReturnTypeNode"]>;
  getReturnType(): Type;
};

/** Tags of a file-level comment, which TypeScript attaches to the first statement. */
const MODULE_TAGS: ReadonlySet<string> = new Set(["module", "fileoverview", "file"]);

const FORMAT_FLAGS = ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

/**
 * Reuses one in-memory project between calls, so lib files are parsed once per worker. Every
 * call replaces the single source file; nothing else in the project changes.
 */
export class SignatureExtractor {
  #project: Project | undefined;

  /**
   * Extracts every exported function with zero or one parameter from `text`. Problems that make
   * the module unusable (syntax errors, an export with 2+ parameters) come back as
   * `{ok: false}` with the 1-based line; never throws for bad input.
   */
  extract(text: string): ExtractionOutcome {
    this.#project ??= new Project({
      useInMemoryFileSystem: true,
      skipAddingFilesFromTsConfig: true,
      compilerOptions: {
        strict: true,
        target: ts.ScriptTarget.ESNext,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        allowImportingTsExtensions: true,
        noEmit: true,
        lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
      },
    });
    const sourceFile = this.#project.createSourceFile("/tool_module.ts", text, {
      overwrite: true,
    });
    return extractFromSourceFile(sourceFile);
  }
}

/** Convenience for one-off use (tests): a fresh extractor for a single text. */
export function extractSignatures(text: string): ExtractionOutcome {
  return new SignatureExtractor().extract(text);
}

function extractFromSourceFile(sourceFile: SourceFile): ExtractionOutcome {
  const program = sourceFile.getProject().getProgram().compilerObject;
  const syntax = program.getSyntacticDiagnostics(sourceFile.compilerNode);
  const first = syntax[0];
  if (first !== undefined) {
    const line = first.start === undefined
      ? undefined
      : sourceFile.getLineAndColumnAtPos(first.start).line;
    const message = ts.flattenDiagnosticMessageText(first.messageText, " ").replace(/\.$/, "");
    const reason = `syntax error: ${message}`;
    return line === undefined ? { ok: false, reason } : { ok: false, reason, line };
  }

  const warnings: string[] = [];
  const candidates: { name: string; fn: FunctionLike; declaration: Node; line: number }[] = [];
  for (const [name, declarations] of sourceFile.getExportedDeclarations()) {
    if (name === "default") {
      warnings.push(`the default export is not a tool: export the function by name`);
      continue;
    }
    const declaration = declarations[0];
    const fn = declaration === undefined ? undefined : functionOf(declaration);
    if (declaration === undefined || fn === undefined) continue;
    candidates.push({ name, fn, declaration, line: lineOf(declaration) });
  }
  // Problems are reported for the first offending export in source order.
  candidates.sort((a, b) => a.line - b.line);
  for (const { name, fn, line } of candidates) {
    const parameters = fn.getParameters().filter((p) => p.getName() !== "this");
    if (parameters.some((p) => p.isRestParameter())) {
      return { ok: false, reason: `export "${name}" takes a rest parameter`, line };
    }
    if (parameters.length > 1) {
      return { ok: false, reason: `export "${name}" takes ${parameters.length} parameters`, line };
    }
  }
  const tools: ExtractedTool[] = [];
  const typeTexts: string[] = [];
  candidates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, fn, declaration } of candidates) {
    const tool = describeTool(name, fn, declaration, warnings);
    tools.push(tool);
    if (tool.descriptor.inputType !== null) typeTexts.push(tool.descriptor.inputType);
    typeTexts.push(tool.descriptor.outputType);
  }
  for (const exportDeclaration of sourceFile.getExportDeclarations()) {
    const specifier = exportDeclaration.getModuleSpecifierValue();
    if (specifier !== undefined) {
      warnings.push(
        `exports re-exported from "${specifier}" (line ${lineOf(exportDeclaration)}) are not ` +
          `tools: define or wrap them in this file`,
      );
    }
  }
  const declarations = collectDeclarations(sourceFile, typeTexts, warnings);
  return { ok: true, tools, declarations, warnings };
}

/** The callable behind an exported declaration, or undefined when it is not a function. */
function functionOf(declaration: Node): FunctionLike | undefined {
  if (Node.isFunctionDeclaration(declaration)) {
    return declaration.getImplementation() ?? declaration;
  }
  if (Node.isVariableDeclaration(declaration)) {
    let initializer = declaration.getInitializer();
    while (
      initializer !== undefined &&
      (Node.isParenthesizedExpression(initializer) || Node.isAsExpression(initializer) ||
        Node.isSatisfiesExpression(initializer))
    ) {
      initializer = initializer.getExpression();
    }
    if (
      initializer !== undefined &&
      (Node.isArrowFunction(initializer) || Node.isFunctionExpression(initializer))
    ) {
      return initializer;
    }
  }
  return undefined;
}

function lineOf(node: Node): number {
  const named = Node.isFunctionDeclaration(node) ? node.getNameNode() : undefined;
  return (named ?? node).getStartLineNumber();
}

/** The JSDoc blocks that document an export, wherever TypeScript attached them. */
function jsDocsOf(declaration: Node): JSDoc[] {
  let docs: JSDoc[] = [];
  if (Node.isFunctionDeclaration(declaration)) {
    docs = declaration.getJsDocs();
    if (docs.length === 0) docs = declaration.getOverloads()[0]?.getJsDocs() ?? [];
  } else if (Node.isVariableDeclaration(declaration)) {
    docs = declaration.getVariableStatement()?.getJsDocs() ?? [];
  } else if (Node.isJSDocable(declaration)) {
    docs = declaration.getJsDocs();
  }
  return docs.filter((d) => !d.getTags().some((t) => MODULE_TAGS.has(t.getTagName())));
}

function describeTool(
  name: string,
  fn: FunctionLike,
  declaration: Node,
  warnings: string[],
): ExtractedTool {
  const doc = jsDocsOf(declaration).at(-1);
  const parameter = fn.getParameters().find((p) => p.getName() !== "this");
  const destructured = parameter !== undefined && !Node.isIdentifier(parameter.getNameNode());
  const parameterName = parameter === undefined || destructured ? "args" : parameter.getName();
  const type = parameter?.getType();
  const properties = type === undefined ? undefined : objectProperties(type);
  const propertyNames = new Set(properties?.map((p) => p.getName()) ?? []);

  // Main text and every tag but per-property @param lines form the description; property docs
  // (`@param args.key`, or `@param key` naming a property) go to `params`.
  const descriptionParts: string[] = [];
  const mainText = doc?.getDescription().trim() ?? "";
  if (mainText !== "") descriptionParts.push(mainText);
  const propertyDocs = new Map<string, string>();
  let argumentDoc: string | undefined;
  for (const tag of doc?.getTags() ?? []) {
    if (Node.isJSDocParameterTag(tag)) {
      const comment = (tag.getCommentText() ?? "").trim().replace(/^-\s*/, "");
      const tagName = tag.compilerNode.name.getText();
      const dot = tagName.indexOf(".");
      if (dot >= 0 || (tagName !== parameterName && propertyNames.has(tagName))) {
        propertyDocs.set(tagName.slice(dot + 1), comment);
        continue;
      }
      argumentDoc = comment;
    }
    descriptionParts.push(tagText(tag.getText()));
  }

  let inputType: string | null = null;
  let inputOptional = true;
  let passEmptyObject = false;
  const params: ToolDescriptor["params"] = [];
  if (parameter !== undefined && type !== undefined) {
    inputType = parameter.getTypeNode()?.getText() ?? typeText(type, parameter);
    const itselfOptional = parameter.hasQuestionToken() || parameter.hasInitializer() ||
      acceptsUndefined(type);
    const allPropertiesOptional = properties !== undefined &&
      properties.every((p) => p.isOptional());
    inputOptional = itselfOptional || allPropertiesOptional;
    passEmptyObject = !itselfOptional && allPropertiesOptional;
    if (properties !== undefined && properties.length > 0) {
      for (const property of properties) {
        params.push({
          name: property.getName(),
          description: propertyDocs.get(property.getName()) ?? propertyDoc(property),
          required: !property.isOptional(),
        });
      }
    } else {
      params.push({
        name: parameterName,
        description: argumentDoc ?? "",
        required: !inputOptional,
      });
    }
  }

  let outputType = outputTypeOf(fn);
  const typeParameters = Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) ||
      Node.isFunctionExpression(fn)
    ? fn.getTypeParameters()
    : [];
  for (const typeParameter of typeParameters) {
    const constraint = typeParameter.getConstraint()?.getText() ?? "unknown";
    const pattern = new RegExp(`(?<![\\w$.])${typeParameter.getName()}(?![\\w$])`, "g");
    if (inputType !== null) inputType = inputType.replace(pattern, `(${constraint})`);
    outputType = outputType.replace(pattern, `(${constraint})`);
  }
  if (typeParameters.length > 0) {
    warnings.push(
      `export "${name}" is generic: its type parameters are shown as their constraints`,
    );
  }

  const descriptor: ToolDescriptor = {
    originalName: name,
    description: descriptionParts.join("\n\n"),
    inputType: inputType === "any" ? "unknown" : inputType,
    inputOptional,
    outputType,
    params,
    stringValuesDecide: type !== undefined && walkedStringValuesDecide(type, fn),
  };
  return { descriptor, passEmptyObject };
}

/** Type flags under which a string's value (or what a type stands for) may decide a fit. */
const VALUE_DECIDING_FLAGS = ts.TypeFlags.StringLiteral | ts.TypeFlags.TemplateLiteral |
  ts.TypeFlags.StringMapping | ts.TypeFlags.TypeParameter | ts.TypeFlags.Index |
  ts.TypeFlags.IndexedAccess | ts.TypeFlags.Conditional | ts.TypeFlags.Substitution;

/** Deepest nesting {@linkcode stringValuesDecide} walks; deeper, it answers true. */
const VALUE_WALK_DEPTH = 16;

/**
 * {@linkcode stringValuesDecide} from the top; a type the compiler cannot answer for counts as
 * deciding (the check then stays per value, as it is without this knowledge), never as a failed
 * module.
 */
function walkedStringValuesDecide(type: Type, at: Node): boolean {
  try {
    return stringValuesDecide(type, at, new Set(), 0);
  } catch {
    return true;
  }
}

/**
 * Whether the value of a string in an argument can decide whether the argument fits `type`:
 * a string literal or template literal type anywhere in it (string enums and `keyof` are
 * unions of literals), or a type this walk cannot see through (a type parameter, a
 * conditional type, nesting deeper than it goes), which counts as deciding. When none is
 * found, the dispatcher checks an argument's shape once for every string in that place.
 */
function stringValuesDecide(type: Type, at: Node, seen: Set<Type>, depth: number): boolean {
  if (seen.has(type)) return false;
  if (depth > VALUE_WALK_DEPTH) return true;
  seen.add(type);
  if ((type.getFlags() & VALUE_DECIDING_FLAGS) !== 0) return true;
  const inner = (t: Type) => stringValuesDecide(t, at, seen, depth + 1);
  if (type.isUnion()) return type.getUnionTypes().some(inner);
  if (type.isIntersection()) return type.getIntersectionTypes().some(inner);
  if (!type.isObject()) return false;
  // JSON carries no functions: an object type with call signatures takes no argument value.
  if (type.getCallSignatures().length > 0) return false;
  if (type.isTuple()) return type.getTupleElements().some(inner);
  const element = type.getArrayElementType();
  if (element !== undefined) return inner(element);
  for (const index of [type.getStringIndexType(), type.getNumberIndexType()]) {
    if (index !== undefined && inner(index)) return true;
  }
  return type.getProperties().some((property) => inner(property.getTypeAtLocation(at)));
}

/** A JSDoc tag as plain text: comment leaders and the closing marker removed. */
function tagText(text: string): string {
  return text.trim().replace(/\s*\*\/$/, "").replace(/\n\s*\* ?/g, "\n").trim();
}

function typeText(type: Type, enclosing: Node): string {
  return type.getText(enclosing, FORMAT_FLAGS);
}

function acceptsUndefined(type: Type): boolean {
  if (type.isAny() || type.isUnknown() || type.isUndefined()) return true;
  return type.isUnion() && type.getUnionTypes().some((t) => t.isUndefined() || t.isVoid());
}

/** Properties of an object-like argument type; undefined for primitives, arrays and functions. */
function objectProperties(type: Type): MorphSymbol[] | undefined {
  const nonNullable = type.getNonNullableType();
  if (!nonNullable.isObject() || nonNullable.isArray() || nonNullable.isTuple()) return undefined;
  if (nonNullable.getCallSignatures().length > 0) return undefined;
  return nonNullable.getProperties();
}

function propertyDoc(property: MorphSymbol): string {
  for (const declaration of property.getDeclarations()) {
    if (Node.isJSDocable(declaration)) {
      const text = declaration.getJsDocs().map((d) => d.getDescription().trim()).join("\n");
      if (text !== "") return text;
    }
  }
  return "";
}

/** The awaited return type as text: written annotations win, `Promise<T>` is unwrapped to T. */
function outputTypeOf(fn: FunctionLike): string {
  const node = fn.getReturnTypeNode();
  if (node !== undefined) {
    if (Node.isTypeReference(node)) {
      const typeName = node.getTypeName().getText();
      const typeArguments = node.getTypeArguments();
      if ((typeName === "Promise" || typeName === "PromiseLike") && typeArguments.length === 1) {
        return typeArguments[0]?.getText() ?? "unknown";
      }
    }
    return node.getText();
  }
  const returned = fn.getReturnType();
  const text = typeText(returned.getAwaitedType() ?? returned, fn);
  return text === "any" ? "unknown" : text;
}

/** A local interface, type alias or enum that tool types may refer to. */
interface LocalDeclaration {
  name: string;
  node: Node;
  order: number;
}

/**
 * Texts of the local declarations the tool types refer to, transitively, in source order, each
 * with its JSDoc and an `export` modifier (they end up inside `declare namespace`). Names that
 * come from imports cannot be followed: they are declared as `unknown` with a warning.
 */
function collectDeclarations(sourceFile: SourceFile, roots: string[], warnings: string[]): string {
  const locals = new Map<string, LocalDeclaration>();
  let order = 0;
  for (const statement of sourceFile.getStatements()) {
    if (
      Node.isInterfaceDeclaration(statement) || Node.isTypeAliasDeclaration(statement) ||
      Node.isEnumDeclaration(statement)
    ) {
      const name = statement.getName();
      if (!locals.has(name)) locals.set(name, { name, node: statement, order: order++ });
    }
  }
  const imported = new Map<string, string>();
  for (const importDeclaration of sourceFile.getImportDeclarations()) {
    const from = importDeclaration.getModuleSpecifierValue();
    const clause = importDeclaration.getImportClause();
    const defaultImport = clause?.getDefaultImport();
    if (defaultImport !== undefined) imported.set(defaultImport.getText(), from);
    for (const named of importDeclaration.getNamedImports()) {
      imported.set(named.getAliasNode()?.getText() ?? named.getName(), from);
    }
  }

  const included = new Set<string>();
  const unresolved = new Map<string, string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const text = queue.pop() ?? "";
    for (const identifier of identifiersIn(text)) {
      const local = locals.get(identifier);
      if (local !== undefined) {
        if (included.has(identifier)) continue;
        included.add(identifier);
        queue.push(local.node.getText(false));
        continue;
      }
      const from = imported.get(identifier);
      if (from !== undefined && !unresolved.has(identifier)) unresolved.set(identifier, from);
    }
  }

  const parts: string[] = [];
  for (const [name, from] of [...unresolved].sort()) {
    warnings.push(
      `type "${name}" is imported from "${from}" and cannot be shown to scripts: it is typed as ` +
        `unknown (declare it in this module to keep its shape)`,
    );
    parts.push(
      `/** Imported from "${from}"; its shape is not known to the gateway. */\n` +
        `export type ${name} = unknown;`,
    );
  }
  const ordered = [...included].map((n) => locals.get(n)).filter((d) => d !== undefined)
    .sort((a, b) => a.order - b.order);
  for (const declaration of ordered) parts.push(declarationText(declaration.node));
  return parts.join("\n\n");
}

/** Identifier-like tokens of a type text, skipping property accesses (`a.B` yields only `a`). */
function identifiersIn(text: string): Set<string> {
  const found = new Set<string>();
  const withoutStrings = text.replace(
    /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g,
    '""',
  )
    .replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/.*$/gm, " ");
  for (const match of withoutStrings.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) {
    found.add(match[0]);
  }
  return found;
}

function declarationText(node: Node): string {
  const docs = jsDocsOf(node).map((d) => d.getText());
  const body = node.getText(false).replace(/^(?:(?:export|default|declare)\s+)*/, "");
  return [...docs, `export ${body}`].join("\n");
}
