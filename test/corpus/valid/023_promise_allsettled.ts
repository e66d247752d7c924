const results = await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error("no"))]);
results.map((r) => r.status)
