typeof performance.now()
