const data = stdin().json() ?? { items: [] };
data.items.length
