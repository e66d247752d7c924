const envelope = await tools.everything.echo.raw({ message: "raw" });
envelope.content[0]?.type
