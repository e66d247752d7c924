(await tools.fs.list()).map((entry) => entry.name)
