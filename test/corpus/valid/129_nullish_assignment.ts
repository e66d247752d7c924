const cache: Record<string, number[]> = {};
(cache.a ??= []).push(1);
cache
