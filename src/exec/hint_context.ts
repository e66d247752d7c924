/**
 * What the checker's hints read while they explain a diagnostic: the program's checker, the
 * script as checked, and the catalogue of namespaces and tools the script globals declare.
 * @module
 */

import type Ts from "typescript";
import type { AliasText } from "./shape_hints.ts";

type TypeScript = typeof Ts;

/** The namespaces and tool members the script globals declare, read from the `tools` type. */
export interface CheckCatalogue {
  /** Namespace identifier (and original name) → its tool members (identifiers and originals). */
  namespaces: Map<string, string[]>;
  /** Type aliases of the tool types by name, for saying what one stands for. */
  aliases?: ReadonlyMap<string, readonly AliasText[]>;
}

/** Where a diagnostic is being explained. */
export interface HintContext {
  ts: TypeScript;
  checker: Ts.TypeChecker;
  /** The script as checked. */
  file: Ts.SourceFile;
  catalogue: CheckCatalogue;
}
