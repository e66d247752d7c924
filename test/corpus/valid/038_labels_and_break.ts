let found = -1;
outer: for (let i = 0; i < 3; i++) {
  for (let j = 0; j < 3; j++) {
    if (i * j === 2) {
      found = i;
      break outer;
    }
  }
}
found
