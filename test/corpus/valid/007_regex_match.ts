const text = "order-123, order-456";
[...text.matchAll(/order-(\d+)/g)].map((m) => Number(m[1]))
