const scores: Record<string, number> = { a: 1, b: 5 };
Object.entries(scores).filter(([, v]) => v > 2).map(([k]) => k)
