const blocks = await tools.everything.get_tiny_image() as Array<{ type: string; data: string; mimeType: string }>;
const image = blocks.find((b) => b.type === "image");
if (image) attach({ type: "image", data: image.data, mimeType: image.mimeType });
"attached"
