import { Buffer } from "node:buffer";
Buffer.from("hello").toString("base64")
