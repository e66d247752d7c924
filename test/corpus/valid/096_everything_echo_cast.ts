const text = await tools.everything.echo({ message: "hi" }) as string;
text.toUpperCase()
