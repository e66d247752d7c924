function isString(x: unknown): x is string {
  return typeof x === "string";
}
const mixed: unknown[] = ["a", 1, "b"];
mixed.filter(isString).join("")
