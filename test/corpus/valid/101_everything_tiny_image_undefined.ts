Array.isArray(await tools.everything.get_tiny_image(undefined))
