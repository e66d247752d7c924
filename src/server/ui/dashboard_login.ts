/**
 * The page `/ui` answers a browser that has no dashboard session: how to get in (`gateway ui`),
 * not a JSON 401, so a newcomer who opens the bare address learns what to run.
 * @module
 */

/** The sign-in page: static text, and why the last attempt failed when there was one. */
export function dashboardLoginHtml(problem: string | null = null): string {
  const why = problem === null ? "" : `<p><strong>${problem}</strong></p>\n`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gateway: sign in</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .3em}</style>
</head><body>
<h1>gateway dashboard</h1>
${why}<p>This page needs a sign-in from the gateway's own user. In the project the gateway serves, run</p>
<p><code>gateway ui</code></p>
<p>It opens (or, with <code>--print</code>, prints) a sign-in address that works once, within a
minute; this browser then stays signed in until the gateway stops.</p>
</body></html>
`;
}
