import assert from "node:assert/strict";
import { withSocketGrant } from "./socket_grant.ts";

const SOCKET = "/tmp/gateway-tools-x/s";

Deno.test("withSocketGrant() adds read, write and unix net access to the socket, all to revoke", () => {
  const { permissions, revoke } = withSocketGrant({ read: ["/mod"], net: false }, SOCKET);
  assert.deepEqual(permissions, {
    read: ["/mod", SOCKET],
    write: [SOCKET],
    net: [`unix:${SOCKET}`],
  });
  assert.deepEqual(revoke, [
    { name: "read", path: SOCKET },
    { name: "write", path: SOCKET },
    { name: "net", host: `unix:${SOCKET}` },
  ]);
});

Deno.test("withSocketGrant() neither adds nor revokes what the module's own grants cover", () => {
  const { permissions, revoke } = withSocketGrant(
    { read: true, write: ["/tmp"], net: true },
    SOCKET,
  );
  assert.deepEqual(permissions, { read: true, write: ["/tmp"], net: true });
  assert.deepEqual(revoke, []);
});

Deno.test("withSocketGrant() does not take a sibling path for a covering one", () => {
  const { revoke } = withSocketGrant(
    { read: ["/tmp/gateway-tools"], net: ["example.com"] },
    SOCKET,
  );
  assert.deepEqual(revoke.map((d) => d.name), ["read", "write", "net"]);
});
