const { a = 1, b: { c } = { c: 2 } } = {} as { a?: number; b?: { c: number } };
a + c
