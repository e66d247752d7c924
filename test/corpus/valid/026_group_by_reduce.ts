const words = ["apple", "avocado", "banana"];
const groups = words.reduce<Record<string, string[]>>((acc, w) => {
  (acc[w[0]!] ??= []).push(w);
  return acc;
}, {});
groups
