try {
  await tools.kv.set({ key: "", value: 1 });
  "no error";
} catch (error) {
  error instanceof ToolError ? error.kind : "other";
}
"done"
