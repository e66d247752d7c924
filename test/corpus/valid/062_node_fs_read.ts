// @corpus {"permissions": {"read": ["./data"]}}
import { readFileSync } from "node:fs";
readFileSync("./data/hello.txt", "utf8").trim()
