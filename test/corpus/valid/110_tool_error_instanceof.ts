try {
  await tools.fs.read({ path: "corpus-missing-file.txt" });
} catch (error) {
  if (error instanceof ToolError) console.log(error.namespace, error.tool, error.kind);
}
