/**
 * The gateway's side of the MCP authorization spec for remote upstreams: an
 * `OAuthClientProvider` for the SDK's client auth (discovery, dynamic client registration or a
 * configured client, PKCE, the `resource` parameter, refresh, step-up), backed by the
 * namespace's {@linkcode OAuthStore}. In the server it never sends anyone to a browser: when a
 * login is needed it throws {@linkcode LoginRequiredError}, naming `gateway auth login NS` and,
 * when the authorization or resource server said why, its reason.
 * @module
 */

import {
  InsufficientScopeError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from "./mcp_sdk.ts";
import type { OAuthStore, StoredOAuth } from "./oauth_store.ts";
import { messageOf } from "../../protocol/message_of.ts";

/** A login (a browser visit) is needed before this namespace can be used. */
export class LoginRequiredError extends Error {
  readonly namespace: string;

  constructor(namespace: string, reason: string | null) {
    super(
      `MCP server "${namespace}" needs a login${reason ? ` (${reason})` : ""}: ` +
        `run gateway auth login ${namespace}`,
    );
    this.name = "LoginRequiredError";
    this.namespace = namespace;
  }
}

/** OAuth settings of one `mcpServers` entry (`oauth` in gateway.json). */
export interface UpstreamOAuthSettings {
  /** A client registered by hand, for servers without dynamic registration. */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for; absent = what the server advertises. */
  scopes?: string[];
}

/** Where the provider sends the user, in the CLI's login; absent in the server. */
export interface InteractiveLogin {
  redirectUrl: string;
  /** The `state` sent with the authorization request, checked on the redirect (CSRF). */
  state: string;
  /** Receives the authorization URL to open. */
  open(url: URL): void | Promise<void>;
}

/** The {@linkcode LoginRequiredError} in an error's `cause` chain, if there is one. */
export function findLoginRequired(error: unknown): LoginRequiredError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof LoginRequiredError) return current;
    current = current.cause;
  }
  return null;
}

/** The provider the SDK's transports and `auth()` drive. */
export class UpstreamOAuthProvider implements OAuthClientProvider {
  readonly #namespace: string;
  readonly #store: OAuthStore;
  readonly #settings: UpstreamOAuthSettings;
  readonly #login: InteractiveLogin | null;
  /** Why the last token request or bearer request was refused, in the server's own words. */
  #lastRefusal: string | null = null;
  #codeVerifier: string | null = null;

  constructor(options: {
    namespace: string;
    store: OAuthStore;
    settings?: UpstreamOAuthSettings;
    login?: InteractiveLogin;
  }) {
    this.#namespace = options.namespace;
    this.#store = options.store;
    this.#settings = options.settings ?? {};
    this.#login = options.login ?? null;
  }

  get redirectUrl(): string {
    return this.#login?.redirectUrl ?? this.#store.read().redirectUri ??
      "http://127.0.0.1/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `gateway (${this.#namespace})`,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#settings.clientSecret ? "client_secret_post" : "none",
      ...(this.#settings.scopes ? { scope: this.#settings.scopes.join(" ") } : {}),
    };
  }

  /** The authorization server's or resource server's last refusal, if any. */
  get lastRefusal(): string | null {
    return this.#lastRefusal;
  }

  /**
   * The login problem behind `error`: a refresh that failed, or a 401 that survived the SDK's
   * own re-authorization (a token the server will never take, e.g. for another audience).
   */
  loginProblem(error: unknown): LoginRequiredError | null {
    const found = findLoginRequired(error);
    if (found) return found;
    if (error instanceof InsufficientScopeError) {
      // Refused before any call (connecting needs more than the grant): only a login that
      // asks for the scope can get further.
      const scope = this.#store.read().stepUpScope;
      return new LoginRequiredError(
        this.#namespace,
        scope ? `the MCP server asks for the scope "${scope}"` : this.#lastRefusal,
      );
    }
    const text = messageOf(error);
    if (!this.#lastRefusal || !/\b401\b|unauthori[sz]ed/i.test(text)) return null;
    return new LoginRequiredError(this.#namespace, this.#lastRefusal);
  }

  /** The scope a call last needed beyond the granted one (step-up), if any. */
  get stepUpScope(): string | null {
    return this.#store.read().stepUpScope ?? null;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.#login === null && this.#store.read().tokens === undefined) {
      // The server has nothing to refresh and cannot log in: a login is needed, and
      // registering a client here would leave one at the authorization server for nothing.
      throw new LoginRequiredError(this.#namespace, this.#lastRefusal);
    }
    if (this.#settings.clientId) {
      return {
        client_id: this.#settings.clientId,
        ...(this.#settings.clientSecret ? { client_secret: this.#settings.clientSecret } : {}),
      };
    }
    const stored = this.#store.read();
    // A client registered for another redirect URI (an earlier login's port) cannot finish
    // this login: register again.
    if (this.#login && stored.redirectUri !== this.#login.redirectUrl) return undefined;
    return stored.clientInformation as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.#store.update((state) => ({
      ...state,
      clientInformation: information as unknown as Record<string, unknown>,
      redirectUri: this.redirectUrl,
    }));
  }

  tokens(): OAuthTokens | undefined {
    return this.#store.read().tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#lastRefusal = null;
    // Kept exactly as received (the SDK stamps the issuer on them).
    this.#store.update((state) => {
      const next: StoredOAuth = { ...state, tokens: tokens as StoredTokens, savedAt: Date.now() };
      // A login that was granted the scope a call stepped up to has settled the step-up.
      const granted = new Set((tokens.scope ?? "").split(" "));
      if (state.stepUpScope?.split(" ").every((s) => granted.has(s))) delete next.stepUpScope;
      return next;
    });
  }

  state(): string {
    return this.#login?.state ?? crypto.randomUUID();
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.#login === null) throw new LoginRequiredError(this.#namespace, this.#lastRefusal);
    await this.#login.open(url);
  }

  /**
   * The PKCE verifier stays in this process: the login that made it is the one that finishes
   * it, and a server failing to reach the upstream must never overwrite a login in progress.
   */
  saveCodeVerifier(verifier: string): void {
    this.#codeVerifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#codeVerifier) {
      throw new Error(`No PKCE code verifier for "${this.#namespace}": start with auth login`);
    }
    return this.#codeVerifier;
  }

  /**
   * Keeps what discovery found (the authorization server and its metadata), so a refresh or a
   * later login reuses it and credentials stay tied to the issuer that granted them.
   */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#store.update((stored) => ({
      ...stored,
      discoveryState: state as unknown as Record<string, unknown>,
    }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#store.read().discoveryState as OAuthDiscoveryState | undefined;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.#store.update((state) => {
      const next = { ...state };
      if (scope === "all" || scope === "tokens") delete next.tokens;
      if (scope === "all" || scope === "client") delete next.clientInformation;
      if (scope === "all" || scope === "verifier") this.#codeVerifier = null;
      if (scope === "all" || scope === "discovery") delete next.discoveryState;
      return next;
    });
  }

  /**
   * `fetch` for the SDK's transport and auth calls that remembers refusals — a token endpoint's
   * `{error, error_description}`, a resource server's `WWW-Authenticate: Bearer error=…` — so
   * the login-needed message can say why (expired, revoked, wrong audience).
   */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (response.status === 401 || response.status === 403) {
      const challenge = response.headers.get("www-authenticate") ?? "";
      const error = /error="([^"]*)"/.exec(challenge)?.[1];
      const description = /error_description="([^"]*)"/.exec(challenge)?.[1];
      const scope = /scope="([^"]*)"/.exec(challenge)?.[1];
      if (response.status === 403 && error === "insufficient_scope" && scope) {
        this.#store.update((state) => ({ ...state, stepUpScope: scope }));
      }
      if (error) {
        this.#lastRefusal = `the MCP server refused the token: ${error}${
          description ? `: ${description}` : ""
        }`;
      }
    } else if (response.status >= 400 && isTokenRequest(init)) {
      const body = await response.clone().json().catch(() => null) as
        | { error?: string; error_description?: string }
        | null;
      if (body?.error) {
        this.#lastRefusal = `the authorization server refused: ${body.error}${
          body.error_description ? `: ${body.error_description}` : ""
        }`;
      }
    }
    return response;
  };
}

type StoredTokens = NonNullable<ReturnType<OAuthStore["read"]>["tokens"]>;

function isTokenRequest(init: RequestInit | undefined): boolean {
  const body = init?.body;
  return body instanceof URLSearchParams
    ? body.has("grant_type")
    : typeof body === "string" && body.includes("grant_type=");
}
