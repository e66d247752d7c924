console.log(JSON.stringify({ a: 1, b: [true, null] }, null, 2));
