/**
 * Worker entry (run as a child process, see schema_to_typescript.ts) that renders schemas with
 * `json-schema-to-typescript`, so the generator's memory goes back when the process idles out
 * instead of staying in the server after a first start (issue 12). Speaks
 * {@linkcode SchemaRenderRequest} / {@linkcode SchemaRenderResponse} with its parent.
 * @module
 */

import type { JsonSchema } from "../namespace.ts";
import { generateDeclarations } from "./generate_declarations.ts";

/** One normalised schema to render, with the name of its root type. */
export interface SchemaRenderRequest {
  id: number;
  schema: JsonSchema;
  typeName: string;
}

/** The generator's declarations, or the message of its error (a schema it cannot render). */
export type SchemaRenderResponse =
  | { id: number; declarations: string }
  | { id: number; error: string };

/** The part of the worker global this entry uses. */
interface WorkerScope {
  postMessage(message: SchemaRenderResponse): void;
  addEventListener(type: "message", listener: (event: MessageEvent<unknown>) => void): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.addEventListener("message", (event) => {
  const request = event.data as SchemaRenderRequest;
  generateDeclarations(request.schema, request.typeName).then(
    (declarations) => scope.postMessage({ id: request.id, declarations }),
    (error: unknown) =>
      scope.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      }),
  );
});
