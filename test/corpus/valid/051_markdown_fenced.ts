```ts
const x = 20;
x + 1
```
