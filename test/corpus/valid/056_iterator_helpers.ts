const it = [1, 2, 3, 4].values();
Array.from(it).filter((n) => n % 2 === 0)
