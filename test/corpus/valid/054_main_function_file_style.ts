async function main(): Promise<void> {
  const parts: string[] = [];
  for (const word of ["a", "b"]) parts.push(word.repeat(2));
  console.log(parts.join(","));
}

await main();
