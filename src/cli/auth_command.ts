/**
 * `gateway auth login|status|logout NS`: OAuth for remote MCP servers. The login runs
 * here, in the CLI, because it needs the user: it prints the authorization URL (and opens a
 * browser on a desktop), receives the redirect on a loopback port, stores the tokens in the
 * data dir (0600) and tells a running server to reconnect the namespace.
 * @module
 */

import type { CliContext } from "./cli_context.ts";
import { parseCommandArgs } from "./command_args.ts";
import { UsageError } from "./usage_error.ts";
import { loadConfig } from "../config/config_loader.ts";
import type { McpServerConfig } from "../config/gateway_config.ts";
import { NoServerError } from "../client/server_connection.ts";
import { OAuthStore } from "../namespaces/mcp/oauth_store.ts";
import { UpstreamOAuthProvider } from "../namespaces/mcp/upstream_oauth_provider.ts";
import { extractWWWAuthenticateParams, oauthFlow } from "../namespaces/mcp/mcp_sdk.ts";
import { messageOf } from "../protocol/message_of.ts";
import { timingSafeEqualText } from "../protocol/timing_safe_equal.ts";
import { printable } from "../config/printable_text.ts";

/** Usage text of `gateway auth`. */
export const AUTH_USAGE = `Usage: gateway auth login NS [--no-browser] [--timeout SECONDS]
       gateway auth status [NS] [--json]
       gateway auth logout NS

OAuth for remote MCP servers (mcpServers entries with a "url"). login prints the URL to
open (and opens a browser on a desktop), waits for the redirect on a loopback port, and
stores the tokens in DATA_DIR/oauth/NS.json (mode 0600); a running gateway reconnects NS.
status says which servers are logged in; logout forgets the stored tokens.
Settings per server: "oauth": { "clientId", "clientSecret", "scopes", "redirectPort" }, or
"oauth": false to turn it off.`;

type HttpServer = Extract<McpServerConfig, { url: string }>;

async function httpServers(context: CliContext): Promise<Record<string, HttpServer>> {
  const { config } = await loadConfig(context.root.configFile, context.env);
  const out: Record<string, HttpServer> = {};
  for (const [name, server] of Object.entries(config.mcpServers)) {
    if ("url" in server) out[name] = server;
  }
  return out;
}

async function serverFor(context: CliContext, name: string | undefined): Promise<HttpServer> {
  const servers = await httpServers(context);
  const known = Object.keys(servers);
  if (!name) {
    throw new UsageError(
      `auth needs a namespace: one of ${known.length > 0 ? known.join(", ") : "(none)"}`,
      AUTH_USAGE,
    );
  }
  const server = servers[name];
  if (!server) {
    throw new UsageError(
      `"${name}" is not a remote MCP server in ${context.root.configFile ?? "gateway.json"}` +
        ` (remote servers: ${known.length > 0 ? known.join(", ") : "none"})`,
      AUTH_USAGE,
    );
  }
  if (server.oauth === false) {
    throw new UsageError(`"${name}" has "oauth": false in its configuration`, AUTH_USAGE);
  }
  return server;
}

/** Runs `gateway auth`. */
export async function authCommand(args: string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { booleans: ["json", "no-browser"], strings: ["timeout"] },
    AUTH_USAGE,
  );
  const [verb, name] = parsed.positionals;
  switch (verb) {
    case "login":
      return await login(context, name, {
        browser: parsed.flags["no-browser"] !== true,
        timeoutMs: 1000 * Number(parsed.flags.timeout ?? "300"),
      });
    case "status":
      return await status(context, name, parsed.flags.json === true);
    case "logout":
      return await logout(context, name);
    default:
      throw new UsageError(
        verb === undefined ? "auth needs login, status or logout" : `unknown auth verb "${verb}"`,
        AUTH_USAGE,
      );
  }
}

async function login(
  context: CliContext,
  name: string | undefined,
  options: { browser: boolean; timeoutMs: number },
): Promise<number> {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new UsageError("--timeout takes a number of seconds", AUTH_USAGE);
  }
  const server = await serverFor(context, name);
  const namespace = name!;
  const settings = server.oauth || {};
  const state = crypto.randomUUID();
  const callback = listenForRedirect(settings.redirectPort ?? 0, state);
  const provider = new UpstreamOAuthProvider({
    namespace,
    store: new OAuthStore(context.dataDir, namespace),
    settings: {
      ...(settings.clientId ? { clientId: settings.clientId } : {}),
      ...(settings.clientSecret ? { clientSecret: settings.clientSecret } : {}),
      ...(settings.scopes ? { scopes: settings.scopes } : {}),
    },
    login: {
      redirectUrl: callback.redirectUrl,
      state,
      open: (url) => {
        context.output.err(
          `Open this URL to log in to "${namespace}":\n  ${url.href}\n` +
            `Waiting for the redirect on ${callback.redirectUrl} …\n`,
        );
        if (options.browser) openBrowser(url, context.env);
      },
    },
  });
  // The configured scopes, widened by the ones granted before (a new login keeps them), any a
  // call stepped up to (insufficient_scope), and the one the server's challenge names now.
  const stored = new OAuthStore(context.dataDir, namespace).read();
  const challenge = await serverChallenge(server, provider.fetch);
  const wanted = [
    ...new Set([
      ...(settings.scopes ?? []),
      ...(stored.tokens?.scope?.split(" ") ?? []),
      ...(stored.stepUpScope?.split(" ") ?? []),
      ...(challenge.scope?.split(" ") ?? []),
    ]),
  ].filter((s) => s !== "");
  const scope = wanted.length > 0 ? wanted.join(" ") : undefined;
  // A login always asks the user: stored tokens would otherwise just be refreshed, with the
  // old scopes (and the old account).
  provider.invalidateCredentials("tokens");
  try {
    const first = await oauthFlow(provider, {
      serverUrl: server.url,
      ...(scope ? { scope } : {}),
      ...(challenge.resourceMetadataUrl
        ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
        : {}),
      fetchFn: provider.fetch,
    });
    if (first === "REDIRECT") {
      const answer = await callback.wait(options.timeoutMs);
      if (answer.state !== state) {
        throw new Error("the redirect's state does not match this login: try again");
      }
      if (answer.error) {
        // The authorization server's words, with nothing in them that acts on the terminal.
        context.output.err(
          `error[LoginRefused]: the authorization server refused the login of "${namespace}": ` +
            `${printable(answer.error)}${
              answer.errorDescription ? `: ${printable(answer.errorDescription)}` : ""
            }\n`,
        );
        return 1;
      }
      await oauthFlow(provider, {
        serverUrl: server.url,
        ...(challenge.resourceMetadataUrl
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
          : {}),
        authorizationCode: answer.code!,
        // The issuer the redirect names (RFC 9207), checked against the one discovered.
        ...(answer.iss === undefined ? {} : { iss: answer.iss }),
        ...(scope ? { scope } : {}),
        fetchFn: provider.fetch,
      });
    }
  } catch (error) {
    const why = provider.lastRefusal ?? messageOf(error);
    context.output.err(`error[LoginFailed]: cannot log in to "${namespace}": ${why}\n`);
    return 1;
  } finally {
    await callback.close();
  }
  const tokens = provider.tokens();
  context.output.out(
    `Logged in to "${namespace}"${tokens?.scope ? ` (scopes: ${tokens.scope})` : ""}; ` +
      `tokens stored in ${new OAuthStore(context.dataDir, namespace).path}\n`,
  );
  await reconnect(context, namespace);
  return 0;
}

async function status(context: CliContext, name: string | undefined, json: boolean) {
  const servers = await httpServers(context);
  const names = name ? [name] : Object.keys(servers);
  const rows = names.map((ns) => {
    const server = servers[ns];
    if (!server) return { namespace: ns, state: "not a remote MCP server" };
    if (server.oauth === false) return { namespace: ns, state: "oauth off" };
    const stored = new OAuthStore(context.dataDir, ns).read();
    if (!stored.tokens) return { namespace: ns, state: "not logged in" };
    const expiresAt = stored.tokens.expires_in !== undefined && stored.savedAt !== undefined
      ? stored.savedAt + stored.tokens.expires_in * 1000
      : null;
    return {
      namespace: ns,
      state: expiresAt !== null && expiresAt < Date.now()
        ? stored.tokens.refresh_token ? "logged in (access token expired; will refresh)" : "expired"
        : "logged in",
      ...(stored.tokens.scope ? { scopes: stored.tokens.scope } : {}),
      ...(expiresAt !== null ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
      refreshable: stored.tokens.refresh_token !== undefined,
    };
  });
  if (json) context.output.out(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0) context.output.out("No remote MCP servers are configured.\n");
  else {
    for (const row of rows) {
      const extra = "expiresAt" in row ? `, access token until ${row.expiresAt}` : "";
      context.output.out(`${row.namespace}: ${row.state}${extra}\n`);
    }
  }
  return 0;
}

async function logout(context: CliContext, name: string | undefined): Promise<number> {
  await serverFor(context, name);
  const removed = new OAuthStore(context.dataDir, name!).remove();
  context.output.out(
    removed ? `Logged out of "${name}": stored tokens removed\n` : `"${name}" had no login\n`,
  );
  await reconnect(context, name!);
  return 0;
}

/** Tells a running server to reconnect `namespace`; none running is fine (it reads on start). */
async function reconnect(context: CliContext, namespace: string): Promise<void> {
  context.autostart = false;
  try {
    await context.withClient(async ({ client }) => {
      const answer = await client.request<{ status: { state: string; reason?: string } }>(
        "namespace.reconnect",
        { namespace },
      );
      context.output.out(
        `gateway: "${namespace}" is ${answer.status.state}${
          answer.status.reason ? `: ${answer.status.reason}` : ""
        }\n`,
      );
    });
  } catch (error) {
    if (!(error instanceof NoServerError)) throw error;
  }
}

/**
 * What the server says to a request without a token: its `WWW-Authenticate` challenge names
 * the scope it wants and where its resource metadata is (the login asks for that scope, as
 * the authorization spec says a client should). Nothing when it answers otherwise or not at all.
 */
async function serverChallenge(
  server: HttpServer,
  fetchFn: typeof fetch,
): Promise<{ scope?: string; resourceMetadataUrl?: URL }> {
  try {
    const response = await fetchFn(server.url, {
      method: "POST",
      headers: {
        ...server.headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "gateway-auth-probe", method: "ping" }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (response.status !== 401 && response.status !== 403) return {};
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    return {
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    };
  } catch {
    return {};
  }
}

interface RedirectAnswer {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

/**
 * A loopback listener for the authorization server's redirect (RFC 8252 §7.3). Any local
 * process can reach the port, so only a redirect carrying this login's `state` ends the login;
 * anything else is answered 400 and the login keeps waiting.
 */
function listenForRedirect(port: number, state: string) {
  let deliver!: (answer: RedirectAnswer) => void;
  const answered = new Promise<RedirectAnswer>((resolve) => (deliver = resolve));
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/callback") return new Response("Not found", { status: 404 });
    const get = (key: string) => url.searchParams.get(key) ?? undefined;
    if (!timingSafeEqualText(state, get("state") ?? "")) {
      return new Response(
        "This answer is not for the login in progress (its state does not match): ignored.",
        { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } },
      );
    }
    const answer: RedirectAnswer = {};
    for (
      const [key, field] of [
        ["code", "code"],
        ["state", "state"],
        ["iss", "iss"],
        ["error", "error"],
      ] as const
    ) {
      const value = get(key);
      if (value !== undefined) answer[field] = value;
    }
    const description = get("error_description");
    if (description !== undefined) answer.errorDescription = description;
    deliver(answer);
    return new Response(
      answer.error
        ? `Login refused: ${printable(answer.error)}. You can close this tab.`
        : "Logged in: you can close this tab and return to the terminal.",
      { headers: { "content-type": "text/plain; charset=utf-8" } },
    );
  });
  return {
    redirectUrl: `http://127.0.0.1:${server.addr.port}/callback`,
    wait: (timeoutMs: number) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no redirect arrived within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
      });
      return Promise.race([answered, timeout]).finally(() => clearTimeout(timer));
    },
    close: () => server.shutdown(),
  };
}

/** Opens `url` in a browser when there is a desktop; failing to is not an error (it was printed). */
function openBrowser(url: URL, env: Record<string, string | undefined>): void {
  const command = Deno.build.os === "darwin"
    ? "open"
    : env.DISPLAY || env.WAYLAND_DISPLAY
    ? "xdg-open"
    : null;
  if (command === null) return;
  try {
    new Deno.Command(command, { args: [url.href], stdin: "null", stdout: "null", stderr: "null" })
      .spawn().status.catch(() => undefined);
  } catch {
    // no opener installed: the URL is on the terminal
  }
}
