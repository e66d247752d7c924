[["a", "b"], ["c"]].flatMap((xs) => xs.map((x) => x.toUpperCase()))
