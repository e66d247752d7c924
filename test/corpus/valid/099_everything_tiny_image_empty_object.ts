const blocks = await tools.everything.get_tiny_image({}) as Array<{ type: string }>;
blocks.map((b) => b.type)
