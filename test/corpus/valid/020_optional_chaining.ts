const cfg: { db?: { host?: string } } = {};
cfg.db?.host ?? "localhost"
