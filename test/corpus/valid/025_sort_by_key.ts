const people = [{ name: "b", age: 3 }, { name: "a", age: 5 }];
people.sort((x, y) => x.name.localeCompare(y.name)).map((p) => p.name)
