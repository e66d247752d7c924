const values = await Promise.all([1, 2, 3].map(async (n) => n * 2));
values
