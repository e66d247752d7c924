/**
 * The dashboard's files (`/ui` and `/ui/<asset>`), served by the gateway itself so its origin is
 * the gateway's own and nothing loads from a CDN (the machine may be offline). The assets are
 * the same for everyone and hold no data, so only `/ui` itself needs a signed-in browser (its
 * session cookie, see `dashboard_sessions.ts`); the page talks to the gateway over `/ws` alone,
 * which the cookie opens too. A strict Content-Security-Policy allows nothing else.
 * `/favicon.ico` is the icon too, without a sign-in: a browser asks for it on every page of
 * the origin (the sign-in page, an error), and a 401 there is only noise in its console.
 * @module
 */

/** Asset names under `/ui/` and their content types. */
const ASSETS: Record<string, string> = {
  "dashboard.js": "text/javascript; charset=utf-8",
  "elements.js": "text/javascript; charset=utf-8",
  "rpc_socket.js": "text/javascript; charset=utf-8",
  "inspector_views.js": "text/javascript; charset=utf-8",
  "protocol_view.js": "text/javascript; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8",
  "editor.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

/** Where browsers look for an icon when a page names none. */
const FAVICON_PATH = "/favicon.ico";

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const cache = new Map<string, Uint8Array>();

async function read(name: string): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = await Deno.readFile(new URL(`./static/${name}`, import.meta.url));
    cache.set(name, bytes);
  }
  return bytes;
}

/** Whether `path` is one of the dashboard's static assets (served without the token). */
export function isDashboardAsset(path: string): boolean {
  return path === FAVICON_PATH ||
    (path.startsWith("/ui/") && Object.hasOwn(ASSETS, path.slice("/ui/".length)));
}

/** The response for `/ui` (the page), `/ui/<asset>` or `/favicon.ico`. */
export async function dashboardResponse(path: string): Promise<Response> {
  const name = path === "/ui" || path === "/ui/"
    ? "index.html"
    : path === FAVICON_PATH
    ? "favicon.svg"
    : path.slice("/ui/".length);
  const type = name === "index.html" ? "text/html; charset=utf-8" : ASSETS[name];
  if (!type) {
    return new Response(JSON.stringify({ error: { message: `No dashboard asset ${path}` } }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  }
  return new Response(await read(name) as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": type,
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": name === "index.html" ? "no-store" : "max-age=300",
    },
  });
}
