import { GatewayCore } from "/work/main/src/server/gateway_core.ts";
import { loadConfig } from "/work/main/src/config/config_loader.ts";
import { createLogger } from "/work/main/src/logger.ts";
import { resolveRoot } from "/work/main/src/config/gateway_paths.ts";
const root = resolveRoot({ flag: "/tmp/gwx/pu", env: {}, cwd: "/tmp" });
const loaded = await loadConfig(root.configFile, {});
const core = new GatewayCore({ root, dataDir: "/tmp/gwx/d7" }, loaded, createLogger({ level: "info", secrets: () => [] }));
await core.start();
console.error("started");
try { Deno.serve({ hostname: "127.0.0.1", port: 9420, onListen() {} }, () => new Response("x")); } catch (e) { console.error("serve threw", e.name); }
const t = Date.now();
await core.stop();
console.error("stopped", Date.now() - t);
