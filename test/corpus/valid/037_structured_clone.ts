const original = { a: [1, { b: 2 }] };
const copy = structuredClone(original);
copy.a.length
