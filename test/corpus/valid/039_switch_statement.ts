function kind(n: number): string {
  switch (true) {
    case n < 0:
      return "negative";
    case n === 0:
      return "zero";
    default:
      return "positive";
  }
}
[-1, 0, 1].map(kind)
