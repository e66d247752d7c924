let a = 1;
let b = 2;
[a, b] = [b, a];
[a, b]
