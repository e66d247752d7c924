console.log("rows:", 2);
console.error("a note on stderr");
console.table([{ a: 1 }]);
