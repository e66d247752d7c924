crypto.randomUUID().length;
