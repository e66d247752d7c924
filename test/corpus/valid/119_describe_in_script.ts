describe("tools.kv.get").includes("key")
