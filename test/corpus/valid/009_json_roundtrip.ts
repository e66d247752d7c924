const data = JSON.parse('{"a": [1, 2, 3]}');
data.a.reduce((s: number, x: number) => s + x, 0)
