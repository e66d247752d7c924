/**
 * The page `/ui` answers without the token: how to get in (`gateway ui`), not a JSON 401, so a
 * newcomer who opens the bare address learns what to run (issue 13).
 * @module
 */

/** The sign-in page: static text, no data. */
export function dashboardLoginHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gateway: sign in</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .3em}</style>
</head><body>
<h1>gateway dashboard</h1>
<p>This page needs the gateway's token. In the project the gateway serves, run</p>
<p><code>gateway ui</code></p>
<p>It prints (and on a desktop opens) this address with the token. The token lives in the
gateway's data dir (<code>token</code>, mode 0600); <code>gateway status</code> shows where.</p>
</body></html>
`;
}
