const who = "model";
`hello ${who}, it is ${new Date(0).toISOString().slice(0, 4)}`
