import { format } from "node:util";
format("%s=%d", "n", 3)
