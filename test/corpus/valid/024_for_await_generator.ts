async function* count(n: number) {
  for (let i = 0; i < n; i++) yield i;
}
let total = 0;
for await (const i of count(4)) total += i;
total
