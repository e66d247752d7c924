import { join } from "node:path";
import { openGatewayDatabase } from "./gateway_database.ts";
import { SqliteStore } from "./sqlite_store.ts";
import { storeContract } from "../../test/support/store_contract.ts";

storeContract({
  name: "SQLite",
  backing: async () => {
    const dir = await Deno.makeTempDir();
    return {
      open: (options) =>
        Promise.resolve(new SqliteStore(openGatewayDatabase(join(dir, "gateway.db")), options)),
      remove: () => Deno.remove(dir, { recursive: true }),
    };
  },
});
