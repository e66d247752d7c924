/**
 * Runs a Web Worker entry module in a child process of its own (`ChildProcessWorker`): gives
 * the entry the worker scope it expects — `postMessage` and `message` events — over stdin and
 * stdout, one JSON document per line. Exiting the process gives all of its memory back, which a
 * terminated Worker inside the server does not. An entry point: `deno run child_worker_main.ts
 * ENTRY_URL`; it exits when stdin closes (the server stopped or died).
 * @module
 */

const encoder = new TextEncoder();

function write(text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
}

/** Reads stdin line by line and hands each to `onLine`; resolves when stdin closes. */
async function readLines(onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of Deno.stdin.readable) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n");
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line !== "") onLine(line);
      end = buffered.indexOf("\n");
    }
  }
}

async function main(): Promise<void> {
  const entry = Deno.args[0];
  if (entry === undefined) {
    console.error("child_worker_main: usage: child_worker_main.ts ENTRY_URL");
    Deno.exit(2);
  }
  // stdout carries the protocol: the entry's console output goes to stderr instead.
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
  Object.defineProperty(globalThis, "postMessage", {
    value: (message: unknown) => write(`${JSON.stringify(message)}\n`),
    configurable: true,
    writable: true,
  });
  await import(entry);
  const scope = globalThis as unknown as { onmessage?: unknown };
  await readLines((line) => {
    const event = new MessageEvent("message", { data: JSON.parse(line) });
    // Both ways a worker entry listens: `addEventListener("message", …)` and `onmessage = …`.
    globalThis.dispatchEvent(event);
    if (typeof scope.onmessage === "function") scope.onmessage(event);
  });
  Deno.exit(0);
}

if (import.meta.main) await main();
