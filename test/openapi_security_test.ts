/**
 * End-to-end, against Prism (a validating mock that refuses requests without the credentials a
 * document's security schemes ask for): `gateway tools NS` and `describe` show what each
 * operation needs and whether the `apis` entry's headers provide it; a 401 names the missing
 * credential and the config that provides it; an entry whose header uses an unset variable is
 * a namespace that says why it is not running while the others run; and a call to an API that
 * is down names the cause ("connection refused 127.0.0.1:PORT").
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { withHarness } from "./support/gateway_harness.ts";
import { pollUntil } from "./support/poll_until.ts";
import { startPrism } from "./support/prism_server.ts";

/** Pets behind an API key (reads) and OAuth 2 (writes); a health check open to anyone. */
const SECURED = `openapi: 3.0.3
info: { title: Secured pets, version: "1" }
servers: [{ url: "http://127.0.0.1:9/" }]
components:
  securitySchemes:
    petsKey: { type: apiKey, in: header, name: X-Api-Key }
    petsAuth:
      type: oauth2
      flows:
        implicit:
          authorizationUrl: http://127.0.0.1:9/authorize
          scopes: { "write:pets": write pets, "read:pets": read pets }
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties: { id: { type: integer, example: 7 }, name: { type: string, example: Rex } }
paths:
  /pets:
    get:
      operationId: listPets
      security: [{ petsKey: [] }]
      responses:
        "200":
          description: the pets
          content: { application/json: { schema: { type: array, items: { $ref: "#/components/schemas/Pet" } } } }
    post:
      operationId: addPet
      security: [{ petsAuth: ["write:pets"] }]
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } }
      responses:
        "201":
          description: added
          content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } }
  /health:
    get:
      operationId: health
      security: []
      responses:
        "200":
          description: up
          content: { application/json: { schema: { type: object, properties: { ok: { type: boolean, example: true } } } } }
`;

Deno.test("OpenAPI security is shown before a call and named when the API refuses one", async () => {
  const spec = await Deno.makeTempFile({ prefix: "gateway-secured-", suffix: ".yaml" });
  await Deno.writeTextFile(spec, SECURED);
  const prism = await startPrism(spec);
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const downPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  try {
    const config = {
      port: 0,
      apis: {
        open: { openapi: spec, baseUrl: prism.url, writes: "allow" },
        keyed: {
          openapi: spec,
          baseUrl: prism.url,
          writes: "allow",
          headers: { "X-Api-Key": "${env:PETS_KEY}" },
        },
        down: { openapi: spec, baseUrl: `http://127.0.0.1:${downPort}` },
      },
    };
    await withHarness({ files: { "gateway.json": JSON.stringify(config) } }, async (gw) => {
      const ok = async (args: string[]) => {
        const result = await gw.cli(args);
        assert.equal(result.code, 0, `gateway ${args.join(" ")}: ${result.stderr}`);
        return result.stdout;
      };

      // PETS_KEY is unset: "keyed" is configured but blocked; "open" and "down" run.
      const listing = await pollUntil("the APIs to load", async () => {
        const out = await ok(["tools"]);
        return /^open\s+openapi\s+3 tools\s+ready$/m.test(out) ? out : undefined;
      });
      assert.match(
        listing,
        /^keyed\s+openapi\s+0 tools\s+failed: configured \(apis "keyed" in .*gateway\.json\) but not started: it uses \$\{PETS_KEY\}, unset in the gateway server's environment; add PETS_KEY=… to .*gateway\.env \(the gateway reloads it\)$/m,
      );
      const blocked = await gw.cli(["exec", "--no-check", "await tools.keyed.listPets()"]);
      assert.equal(blocked.code, 1);
      assert.match(
        blocked.stderr,
        /^error\[NamespaceUnavailable\]: Namespace "keyed" cannot be used: configured \(apis "keyed"/,
      );

      // Each operation's needs, and that nothing configured provides them.
      const tools = await ok(["tools", "open"]);
      assert.match(
        tools,
        /tools\.open\.listPets\(.*\n(?: {4}(?!security).*\n)? {4}security: needs apiKey "petsKey" \(header "X-Api-Key"\): not configured — add "headers": \{ "X-Api-Key": "\$\{env:X_API_KEY\}" \} in "apis\.open" of gateway\.json\n/,
      );
      assert.match(
        tools,
        /security: needs oauth2 "petsAuth" \(scopes write:pets\): not configured — add "headers": \{ "Authorization": "Bearer \$\{env:OPEN_TOKEN\}" \}/,
      );
      const health = /tools\.open\.health\(.*\n((?: {4}.*\n)*)/.exec(tools)?.[1] ?? "";
      assert.doesNotMatch(health, /security/);
      assert.match(
        await ok(["describe", "tools.open.listPets"]),
        /^\/\/ Security: needs apiKey "petsKey" \(header "X-Api-Key"\): not configured/m,
      );

      // The call fails with Prism's 401, and the error names the fix.
      const refused = await gw.cli(["exec", "await tools.open.listPets()"]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /error\[ToolError\]: "open\.listPets" \(GET \/pets\) answered 401 .*; it needs apiKey "petsKey" \(header "X-Api-Key"\), which the gateway does not send: add "headers": \{ "X-Api-Key"/,
      );
      assert.match(await ok(["exec", "(await tools.open.health()).ok"]), /^true$/m);

      // A down API: the cause, named.
      const down = await gw.cli(["exec", "await tools.down.health()"]);
      assert.equal(down.code, 1);
      assert.match(
        down.stderr,
        new RegExp(
          `error\\[ToolError\\]: "down\\.health" \\(GET /health\\) failed: connection refused 127\\.0\\.0\\.1:${downPort} \\(nothing listens there: is the API running\\?\\)`,
        ),
      );

      // PETS_KEY in gateway.env: "keyed" starts, its key is sent, and Prism lets it through.
      await Deno.writeTextFile(join(gw.root, "gateway.env"), "PETS_KEY=k-123\n", { mode: 0o600 });
      const keyed = await pollUntil("keyed to start once PETS_KEY is set", async () => {
        const out = await ok(["tools", "keyed"]);
        return /^keyed \(openapi, ready\)/.test(out) ? out : undefined;
      }, { timeoutMs: 20_000 });
      assert.match(
        keyed,
        /security: needs apiKey "petsKey" \(header "X-Api-Key"\): provided by headers\."X-Api-Key"/,
      );
      const pets = await ok(["exec", "(await tools.keyed.listPets()).map((p) => p.name)"]);
      assert.match(pets, /Rex/);
      const write = await gw.cli([
        "exec",
        'await tools.keyed.addPet({ body: { id: 1, name: "Tom" } })',
      ]);
      assert.equal(write.code, 1);
      assert.match(
        write.stderr,
        /answered 401 .*; it needs oauth2 "petsAuth" \(scopes write:pets\), which the gateway does not send: add "headers": \{ "Authorization": "Bearer \$\{env:KEYED_TOKEN\}" \} in "apis\.keyed" of gateway\.json/,
      );
    });
  } finally {
    await prism.stop();
    await Deno.remove(spec);
  }
});
