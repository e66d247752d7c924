// A tool without an outputSchema resolves to `any` (issue 13): its text needs no cast.
const reply = await tools.everything.echo({ message: "a" });
reply.toUpperCase()
