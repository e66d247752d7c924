/**
 * The surfaces an endpoint serves, by exposure name: `code` (the default), `tools`, or the name
 * of a configured namespace served as itself. Surfaces hold no session state, so one of each
 * serves every session and request of an endpoint; a namespace is checked against the
 * configured ones the first time it is asked for.
 * @module
 */

import { codeSurface } from "./code_surface.ts";
import type { GatewayCall } from "./gateway_call.ts";
import type { HeldStateCodec } from "./gateway_mcp_server.ts";
import type { McpSurface } from "./mcp_surface.ts";
import { namespaceSurface } from "./namespace_surface.ts";
import { proxySurface } from "./proxy_surface.ts";

/** An exposure that names no configured namespace: the caller's mistake, with what exists. */
export class ExposureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExposureError";
  }
}

/** Builds and keeps the surfaces of one endpoint. */
export class SurfaceCatalog {
  readonly #call: GatewayCall;
  readonly #codec: HeldStateCodec;
  readonly #surfaces = new Map<string, Promise<McpSurface>>();

  constructor(call: GatewayCall, codec: HeldStateCodec) {
    this.#call = call;
    this.#codec = codec;
  }

  /** The surface of `exposure`; rejects with {@linkcode ExposureError} for an unknown one. */
  get(exposure: string): Promise<McpSurface> {
    const known = this.#surfaces.get(exposure);
    if (known) return known;
    const built = this.#build(exposure);
    this.#surfaces.set(exposure, built);
    // A namespace that is not configured now may be after a reload: ask again next time.
    built.catch(() => this.#surfaces.delete(exposure));
    return built;
  }

  async #build(exposure: string): Promise<McpSurface> {
    if (exposure === "code") {
      return codeSurface(this.#call, (state) => this.#codec.mint(state));
    }
    if (exposure === "tools") return proxySurface(this.#call);
    const { namespaces } = await this.#call("namespaces", {}) as {
      namespaces: { name: string; identifier: string }[];
    };
    const found = namespaces.find((n) => n.name === exposure || n.identifier === exposure);
    if (!found) {
      throw new ExposureError(
        `Unknown exposure "${exposure}": use code, tools, or a configured namespace (${
          namespaces.map((n) => n.name).join(", ") || "none configured"
        })`,
      );
    }
    return namespaceSurface(this.#call, found.name);
  }
}
