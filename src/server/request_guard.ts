/**
 * Who may talk to the gateway on its TCP port: loopback `Host` names only, no foreign `Origin`,
 * and the token on everything but `/health`. One check for HTTP, WebSocket and `/mcp`, so no
 * route can forget it. (The data dir's socket, which only this user can reach, needs none of
 * it: see `http_routes.ts`.)
 * @module
 */

import { timingSafeEqualText } from "../protocol/timing_safe_equal.ts";

/** Host names a loopback server answers to; anything else is DNS rebinding or a mistake. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Why a request was refused. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

/**
 * Splits a Host header into name and port, or null when it is not exactly `name[:port]`:
 * anything after the port (`127.0.0.1:PORT:evil`) makes the whole header invalid.
 */
function splitHost(host: string): { name: string; port: string | null } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) return null;
  return { name: match[1]!.toLowerCase(), port: match[2] ?? null };
}

/** Origins the server itself serves its UI from; a browser page elsewhere is refused. */
export function ownOrigins(port: number): Set<string> {
  return new Set([...LOOPBACK_HOSTS].map((h) => `http://${h}:${port}`));
}

/**
 * Checks Host and Origin. `extraHosts` lets a user who bound a non-loopback address opt in to
 * its name explicitly.
 */
export function checkHostAndOrigin(
  request: Request,
  options: { port: number; extraHosts?: readonly string[] },
): Refusal | null {
  const host = request.headers.get("host");
  if (host === null) return { status: 403, message: "Refused: request has no Host header" };
  const split = splitHost(host);
  const hostOk = split !== null &&
    (LOOPBACK_HOSTS.has(split.name) || (options.extraHosts ?? []).includes(split.name));
  if (!hostOk || (split.port !== null && split.port !== String(options.port))) {
    return {
      status: 403,
      message: `Refused: Host "${host}" is not this gateway's loopback address`,
    };
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !ownOrigins(options.port).has(origin.toLowerCase())) {
    return { status: 403, message: `Refused: Origin "${origin}" is not this gateway's own` };
  }
  return null;
}

/**
 * Checks the token: `Authorization: Bearer …`, or `?token=` when `allowQuery` (WebSocket and
 * UI, which browsers cannot give headers).
 */
export function checkToken(
  request: Request,
  options: { token: string; allowQuery: boolean },
): Refusal | null {
  const header = request.headers.get("authorization");
  let given: string | null = null;
  if (header !== null) {
    const match = /^Bearer (.+)$/.exec(header);
    if (!match) {
      return { status: 401, message: "Unauthorized: use Authorization: Bearer <token>" };
    }
    given = match[1]!.trim();
  } else if (options.allowQuery) {
    given = new URL(request.url).searchParams.get("token");
  }
  if (given === null || given === "") {
    return {
      status: 401,
      message:
        "Unauthorized: a token is required (the CLI reads it from the data dir's token file)",
    };
  }
  if (!timingSafeEqualText(options.token, given)) {
    return { status: 401, message: "Unauthorized: wrong token" };
  }
  return null;
}
