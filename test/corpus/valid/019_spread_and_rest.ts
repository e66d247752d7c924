function sum(...xs: number[]) {
  return xs.reduce((a, b) => a + b, 0);
}
sum(...[1, 2, 3], 4)
