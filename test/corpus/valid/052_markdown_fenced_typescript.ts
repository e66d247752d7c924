```typescript
console.log("fenced");
```;
