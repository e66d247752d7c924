const target = Deno.args[0];
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({port}) => console.log(`proxy ${port}`) }, async (req) => {
  const body = req.body ? await req.text() : "";
  console.log(">>", req.method, req.headers.get("mcp-method"), req.headers.get("mcp-session-id"), body.slice(0, 300));
  const h = new Headers(req.headers); h.delete("host");
  const r = await fetch(target, { method: req.method, headers: h, body: body || undefined });
  console.log("<<", r.status, r.headers.get("content-type"));
  return new Response(r.body, { status: r.status, headers: r.headers });
});
