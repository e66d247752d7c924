await tools.everything.echo({ message: "hi" })
