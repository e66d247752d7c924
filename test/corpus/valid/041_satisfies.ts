const config = { retries: 3, name: "x" } satisfies Record<string, string | number>;
config.retries
