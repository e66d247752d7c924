// @corpus {"args": ["one", "two", "three"]}
const [first = "none", ...rest] = args;
`${first} +${rest.length}`
