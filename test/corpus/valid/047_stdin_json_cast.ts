// @corpus {"stdin": "{\"items\": [1, 2, 3]}"}
const input = stdin().json() as { items: number[] };
input.items.length
