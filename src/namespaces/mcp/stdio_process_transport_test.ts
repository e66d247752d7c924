import assert from "node:assert/strict";
import { isProcessGone } from "../../../test/fixtures/mcp/mcp_test_servers.ts";
import { pollUntil } from "../../../test/support/poll_until.ts";
import { describeExit } from "../../process/describe_exit.ts";
import { StdioProcessTransport } from "./stdio_process_transport.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

function shell(script: string, options: { maxMessageBytes?: number; killGraceMs?: number } = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const messages: unknown[] = [];
  const transport = new StdioProcessTransport({
    command: "sh",
    args: ["-c", script],
    env: ENV,
    onStderrLine: (line) => lines.push(line),
    ...options,
  });
  transport.onerror = (error) => errors.push(error.message);
  transport.onmessage = (message) => messages.push(message);
  return { transport, lines, errors, messages };
}

Deno.test("`StdioProcessTransport` delivers JSON-RPC lines and reports garbage and over-long lines", async () => {
  const { transport, errors, messages } = shell(
    `echo 'not json'; echo '{"jsonrpc":"2.0","method":"one"}'; head -c 3000 /dev/zero | tr '\\0' x; echo;` +
      ` echo '{"jsonrpc":"2.0","id":1,"result":{}}'; echo '{"no":"rpc"}'; cat >/dev/null`,
    { maxMessageBytes: 1000 },
  );
  await transport.start();
  try {
    await pollUntil(
      "two messages and three errors",
      () => messages.length === 2 && errors.length === 3,
    );
    assert.deepStrictEqual(messages, [
      { jsonrpc: "2.0", method: "one" },
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
    assert.match(
      errors[0] ?? "",
      /^Ignored a line on stdout of "sh" that is not JSON-RPC: "not json"$/,
    );
    assert.match(
      errors[1] ?? "",
      /^Dropped a message from "sh": longer than 1000 bytes \(\d+ bytes\)$/,
    );
    assert.match(errors[2] ?? "", /not JSON-RPC: "\{\\"no\\":\\"rpc\\"\}"/);
  } finally {
    await transport.close();
  }
});

Deno.test("`StdioProcessTransport` joins lines that arrive over many reads, and lines that share one", async () => {
  // 200 KB of payload (longer than one read's buffer) written in pieces, then two short lines in
  // one write: the pieces of a line must survive the reads that follow them.
  const payload = "y".repeat(200_000);
  const { transport, errors, messages } = shell(
    `printf '{"jsonrpc":"2.0","id":1,"result":{"text":"'; sleep 0.05; ` +
      `head -c 100000 /dev/zero | tr '\\0' y; sleep 0.05; head -c 100000 /dev/zero | tr '\\0' y; ` +
      `printf '"}}\\n{"jsonrpc":"2.0","id":2,"result":{}}\\n{"jsonrpc":"2.0","id":3,"result":{}}\\n'; ` +
      `cat >/dev/null`,
  );
  await transport.start();
  try {
    await pollUntil("three messages", () => messages.length === 3);
    assert.deepStrictEqual(errors, []);
    assert.deepStrictEqual(messages, [
      { jsonrpc: "2.0", id: 1, result: { text: payload } },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
  } finally {
    await transport.close();
  }
});

Deno.test("`StdioProcessTransport` writes messages as lines the child can read", async () => {
  const { transport, messages } = shell(`read line; echo "$line"; cat >/dev/null`);
  await transport.start();
  try {
    await transport.send({ jsonrpc: "2.0", id: 7, method: "ping" });
    await pollUntil("the echoed message", () => messages.length === 1);
    assert.deepStrictEqual(messages[0], { jsonrpc: "2.0", id: 7, method: "ping" });
  } finally {
    await transport.close();
  }
});

Deno.test("`StdioProcessTransport` drains a stderr flood into a bounded tail and rate-limits log lines", async () => {
  const { transport, lines, messages } = shell(
    `yes 'error line of the flood' | head -n 400000 >&2; echo 'the end' >&2;` +
      ` echo '{"jsonrpc":"2.0","method":"after"}'; cat >/dev/null`,
  );
  await transport.start();
  try {
    await pollUntil("the message after the flood", () => messages.length === 1, {
      timeoutMs: 10_000,
    });
    await pollUntil("the end of the flood", () => transport.stderr.text().endsWith("the end\n"));
    assert.ok(transport.stderr.totalChars > 9_000_000);
    assert.ok(transport.stderr.text().length <= 65_536);
    // At most 20 lines a second are logged: of the 400 000 lines, a tiny share was.
    assert.ok(lines.length < 4_000, `${lines.length} lines logged`);
  } finally {
    await transport.close();
  }
});

Deno.test("`StdioProcessTransport.close()` leaves no process of the group behind", async () => {
  const { transport } = shell(`sleep 300 & echo "child $!" >&2; cat >/dev/null`);
  await transport.start();
  let grandchild = 0;
  try {
    await pollUntil("the grandchild pid", () => /child (\d+)/.test(transport.stderr.text()));
    grandchild = Number(/child (\d+)/.exec(transport.stderr.text())?.[1]);
    assert.equal(isProcessGone(grandchild), false);
  } finally {
    await transport.close();
  }
  await pollUntil("the grandchild to be gone", () => isProcessGone(grandchild));
  assert.equal(transport.exitStatus?.code, 0);
});

Deno.test("`StdioProcessTransport.close()` escalates to SIGKILL when the child ignores EOF and SIGTERM", async () => {
  const { transport } = shell(`trap '' TERM; while :; do sleep 0.05; done`, { killGraceMs: 150 });
  let closed = 0;
  transport.onclose = () => closed++;
  await transport.start();
  await transport.close();
  await transport.close();
  assert.equal(transport.exitStatus?.signal, "SIGKILL");
  assert.equal(describeExit(transport.exitStatus!), "was killed by SIGKILL");
  assert.equal(closed, 1);
});

Deno.test("`StdioProcessTransport` reports a child that exits by itself and refuses later sends", async () => {
  const { transport } = shell(`echo 'bye' >&2; exit 3`);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await closed;
  assert.equal(describeExit(transport.exitStatus!), "exited with code 3");
  assert.equal(transport.stderr.lastLines(), "bye");
  await assert.rejects(
    () => transport.send({ jsonrpc: "2.0", method: "x" }),
    /^Error: Cannot send to "sh": the process is not running$/,
  );
  await transport.close();
});

Deno.test("`StdioProcessTransport` gives the child exactly its env: nothing of the gateway's own", async () => {
  Deno.env.set("GATEWAY_TEST_PARENT_ONLY", "not for the child");
  try {
    const { transport } = shell(`env >&2; echo done >&2; cat >/dev/null`);
    await transport.start();
    try {
      await pollUntil("the child's env", () => transport.stderr.text().includes("done\n"));
      const names = transport.stderr.text().split("\n").filter((line) => line.includes("="))
        .map((line) => line.slice(0, line.indexOf("="))).sort();
      // sh sets PWD itself (and some shells SHLVL, _); everything else comes from `env`.
      const unexpected = names.filter((name) => !["PATH", "PWD", "SHLVL", "_"].includes(name));
      assert.deepStrictEqual(unexpected, []);
      assert.ok(names.includes("PATH"));
    } finally {
      await transport.close();
    }
  } finally {
    Deno.env.delete("GATEWAY_TEST_PARENT_ONLY");
  }
});

Deno.test("`StdioProcessTransport.start()` rejects naming a command that does not exist", async () => {
  const transport = new StdioProcessTransport({
    command: "no-such-command-xyz",
    args: [],
    env: ENV,
  });
  await assert.rejects(() => transport.start(), {
    message: 'Cannot start "no-such-command-xyz": command not found',
  });
  await transport.close();
});

Deno.test("`StdioProcessTransport.start()` rejects naming a working directory that does not exist", async () => {
  const transport = new StdioProcessTransport({
    command: "sh",
    args: ["-c", "true"],
    env: ENV,
    cwd: "/no/such/dir-xyz",
  });
  await assert.rejects(() => transport.start(), {
    message:
      'Cannot start "sh": its working directory "/no/such/dir-xyz" does not exist (fix "cwd")',
  });
});

Deno.test("`StdioProcessTransport` reports a message handler that throws and goes on reading", async () => {
  const { transport, errors, messages } = shell(
    `echo '{"jsonrpc":"2.0","method":"one"}'; echo '{"jsonrpc":"2.0","method":"two"}'; cat >/dev/null`,
  );
  transport.onmessage = (message) => {
    messages.push(message);
    if (messages.length === 1) throw new Error("handler bug");
  };
  await transport.start();
  try {
    await pollUntil("both messages", () => messages.length === 2);
    assert.deepStrictEqual(errors, ['Cannot handle a line on stdout of "sh"']);
  } finally {
    await transport.close();
  }
});

Deno.test("`StdioProcessTransport.close()` right after `start()` ends the child being spawned", async () => {
  let pid = 0;
  const transport = new StdioProcessTransport({
    command: "sh",
    args: ["-c", "cat >/dev/null"],
    env: ENV,
    onSpawn: (spawned) => (pid = spawned),
  });
  const started = transport.start();
  await transport.close();
  await started;
  assert.ok(pid > 0);
  assert.ok(transport.exitStatus !== undefined, "the child was reaped");
  assert.ok(isProcessGone(pid));
});
