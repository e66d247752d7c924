import { createHash } from "node:crypto";
createHash("sha256").update("x").digest("hex").slice(0, 8)
