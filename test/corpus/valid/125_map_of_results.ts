const sums = new Map<string, unknown>();
for (const [a, b] of [[1, 2], [3, 4]] as const) {
  sums.set(`${a}+${b}`, await tools.everything.get_sum({ a, b }));
}
Object.fromEntries(sums)
