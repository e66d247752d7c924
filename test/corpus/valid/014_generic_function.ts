function first<T>(items: T[]): T | undefined {
  return items[0];
}
first([3, 2, 1])
