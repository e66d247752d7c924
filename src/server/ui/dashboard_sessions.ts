/**
 * How a browser gets into the dashboard without the token ever appearing in a URL, a process's
 * arguments or the browser's history: `gateway ui` asks the server (on its socket) for a
 * sign-in code — random, good for one use and a minute — and opens `/ui/login?code=…`; that
 * request trades the code for a session held in an HttpOnly, SameSite=Strict cookie, which the
 * page's WebSocket then carries. A code another user reads from the opener's command line is
 * worth nothing once the browser has used it or the minute is over. Sessions live in the server's
 * memory and end with it (or after {@linkcode SESSION_TTL_MS}).
 * @module
 */

/** How long a sign-in code may wait to be used. */
export const CODE_TTL_MS = 60_000;

/** How long a dashboard session lasts (a server restart ends it sooner). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The cookie of the dashboard session of the gateway on `port` (cookies ignore ports). */
export function sessionCookieName(port: number): string {
  return `gateway_session_${port}`;
}

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Sign-in codes waiting to be used, and the sessions they opened. */
export class DashboardSessions {
  readonly #codes = new Map<string, number>();
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** A new sign-in code, good for one use within {@linkcode CODE_TTL_MS}. */
  issueCode(): { code: string; expiresInMs: number } {
    this.#sweep();
    const code = randomSecret();
    this.#codes.set(code, this.#now() + CODE_TTL_MS);
    return { code, expiresInMs: CODE_TTL_MS };
  }

  /**
   * Uses up `code` and opens a session for it: its secret, or null when the code is unknown,
   * used already or expired.
   */
  exchange(code: string): string | null {
    const expiresAt = this.#codes.get(code);
    this.#codes.delete(code);
    if (expiresAt === undefined || expiresAt <= this.#now()) return null;
    const session = randomSecret();
    this.#sessions.set(session, this.#now() + SESSION_TTL_MS);
    return session;
  }

  /** Opens a session for a caller that proved itself otherwise (the token). */
  open(): string {
    this.#sweep();
    const session = randomSecret();
    this.#sessions.set(session, this.#now() + SESSION_TTL_MS);
    return session;
  }

  /** Whether `session` is a live session's secret. */
  isSession(session: string): boolean {
    const expiresAt = this.#sessions.get(session);
    return expiresAt !== undefined && expiresAt > this.#now();
  }

  /** The session secret in `request`'s cookie for the gateway on `port`, if any. */
  sessionOf(request: Request, port: number): string | null {
    const header = request.headers.get("cookie");
    if (header === null) return null;
    const name = sessionCookieName(port);
    for (const part of header.split(";")) {
      const at = part.indexOf("=");
      if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
    }
    return null;
  }

  /** The `Set-Cookie` value that hands `session` to the browser. */
  cookie(session: string, port: number): string {
    return `${sessionCookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/; ` +
      `Max-Age=${SESSION_TTL_MS / 1000}`;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [code, expiresAt] of this.#codes) if (expiresAt <= now) this.#codes.delete(code);
    for (const [id, expiresAt] of this.#sessions) if (expiresAt <= now) this.#sessions.delete(id);
  }
}
