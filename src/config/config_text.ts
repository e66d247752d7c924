/**
 * `gateway.json` as JSON with comments: parsed with jsonc-parser, so every error names its line.
 * Loaded only for a config that plain `JSON.parse` cannot take or that does not validate
 * (config_loader.ts): jsonc-parser is a CommonJS package, slow to load on the server's start path.
 * @module
 */

import {
  findNodeAtLocation,
  getNodeValue,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { ConfigError } from "./config_error.ts";
import { configFromValue, type LoadedConfig } from "./config_value.ts";

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Parses and validates config text; `file` is only used in messages. */
export function parseConfigText(
  text: string,
  options: { file: string; env: Record<string, string | undefined> },
): LoadedConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new ConfigError(
      `Invalid JSON in "${options.file}" at line ${lineOf(text, first.offset)}: ${
        printParseErrorCode(first.error)
      }`,
    );
  }
  return configFromValue(tree === undefined ? {} : getNodeValue(tree), {
    ...options,
    lineAt: (path) => {
      const node = tree && findNodeAtLocation(tree, path);
      return node ? lineOf(text, node.offset) : undefined;
    },
  });
}
