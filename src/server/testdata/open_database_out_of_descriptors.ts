/**
 * Run with a low descriptor limit (`ulimit -n`): takes every free descriptor, then opens the
 * gateway database (argument 1) through `retryWhileDescriptorsExhausted`, giving the
 * descriptors back at its first retry — what the supervised listener does when it sheds a flood.
 * Prints one JSON line: whether the shortage was seen, the retries, and whether the open worked.
 * @module
 */

import { descriptorsExhausted, retryWhileDescriptorsExhausted } from "../descriptor_wait.ts";
import { openGatewayDatabase } from "../../store/gateway_database.ts";

const path = Deno.args[0];
if (path === undefined) throw new Error("give the database path as the argument");
const held: Deno.FsFile[] = [];
try {
  for (;;) held.push(Deno.openSync("/dev/null"));
} catch {
  // out of descriptors: the flood holds them all
}
const sawShortage = descriptorsExhausted();
let retries = 0;
const database = await retryWhileDescriptorsExhausted(
  () => openGatewayDatabase(path),
  {
    what: "the history database",
    log: () => {
      retries++;
      for (const file of held.splice(0)) file.close();
    },
  },
);
const version = database.prepare("PRAGMA user_version").get() as { user_version: number };
database.close();
console.log(JSON.stringify({ sawShortage, retries, opened: version.user_version > 0 }));
