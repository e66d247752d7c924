crypto.randomUUID().length
