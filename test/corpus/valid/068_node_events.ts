import { EventEmitter } from "node:events";
const e = new EventEmitter();
let got = 0;
e.on("x", (n: number) => (got = n));
e.emit("x", 5);
got
