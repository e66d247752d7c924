function show(row) {
  return `${row.name}: ${row.value}`;
}
show({ name: "x", value: 1 })
