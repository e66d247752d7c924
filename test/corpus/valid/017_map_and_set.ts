const m = new Map<string, number>();
m.set("a", 1).set("b", 2);
const s = new Set([1, 2, 2, 3]);
({ keys: [...m.keys()], size: s.size })
