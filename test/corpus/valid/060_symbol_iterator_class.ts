class Range {
  constructor(private n: number) {}
  *[Symbol.iterator]() {
    for (let i = 0; i < this.n; i++) yield i;
  }
}
[...new Range(3)]
