class NotFound extends Error {
  constructor(what: string) {
    super(`${what} not found`);
    this.name = "NotFound";
  }
}
try {
  throw new NotFound("x");
} catch (e) {
  (e as Error).name;
}
"handled"
