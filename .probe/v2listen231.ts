import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.3.1";
const [url] = Deno.args;
const client = new Client({ name: "probe", version: "1" }, { versionNegotiation: { mode: "auto" }, listChanged: { tools: { onChanged: () => console.log("changed") } } });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
console.log("era", client.getProtocolEra());
const l = await client.listTools();
console.log(l.tools.length);
await client.close();
console.log("closed");
