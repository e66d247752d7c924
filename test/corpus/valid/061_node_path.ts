import { join, basename } from "node:path";
basename(join("/a", "b", "c.txt"))
