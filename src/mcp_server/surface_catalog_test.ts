import assert from "node:assert/strict";
import type { GatewayCall } from "./gateway_call.ts";
import { heldStateCodec } from "./gateway_mcp_server.ts";
import { ExposureError, SurfaceCatalog } from "./surface_catalog.ts";

const namespaces: GatewayCall = (method) =>
  method === "namespaces"
    ? Promise.resolve({ namespaces: [{ name: "every thing", identifier: "every_thing" }] })
    : Promise.reject(new Error(`unexpected ${method}`));

Deno.test("an exposure is code, tools or a configured namespace (by name or identifier); anything else names them", async () => {
  const catalog = new SurfaceCatalog(namespaces, await heldStateCodec("secret"));
  assert.equal((await catalog.get("code")).toolsChange, false);
  assert.equal((await catalog.get("tools")).toolsChange, true);
  assert.equal(await catalog.get("code"), await catalog.get("code"), "one surface per exposure");
  const named = await catalog.get("every_thing");
  assert.equal(named.clientUri("every thing", "x://1"), "x://1");
  await assert.rejects(
    () => catalog.get("nope"),
    (e) =>
      e instanceof ExposureError &&
      e.message ===
        'Unknown exposure "nope": use code, tools, or a configured namespace (every thing)',
  );
});
