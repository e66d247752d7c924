// @corpus {"args": ["1", "2"]}
/**
 * Sums numbers given as arguments.
 * @param numbers the numbers
 */
const numbers = args.map(Number);
console.log(numbers.reduce((a, b) => a + b, 0));
