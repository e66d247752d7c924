main();
async function main() {
  return await Promise.resolve(42);
}
