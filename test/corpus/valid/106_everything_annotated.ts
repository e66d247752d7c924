const blocks = await tools.everything.get_annotated_message({ messageType: "success" });
blocks !== undefined
