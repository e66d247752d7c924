// A tool without an outputSchema resolves to `any`: its text needs no cast.
const reply = await tools.everything.echo({ message: "a" });
reply.toUpperCase()
