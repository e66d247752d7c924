const replies = await Promise.all(["a", "b", "c"].map((message) => tools.everything.echo({ message })));
replies.length
