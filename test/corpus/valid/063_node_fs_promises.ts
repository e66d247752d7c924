// @corpus {"permissions": {"read": ["./data"]}}
import { readFile } from "node:fs/promises";
(await readFile("./data/hello.txt", "utf8")).length
