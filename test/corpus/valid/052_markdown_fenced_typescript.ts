```typescript
console.log("fenced");
```
