import { basename, join } from "node:path";
basename(join("/a", "b", "c.txt"));
