let ran = false;
queueMicrotask(() => (ran = true));
await Promise.resolve();
ran
