const point = [1, 2] as const;
point[0] + point[1]
