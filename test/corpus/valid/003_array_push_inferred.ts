const a = [];
a.push(1);
a.push(2);
a
