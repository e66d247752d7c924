typeof performance.now();
