const listing = await resources.list("everything");
const first = listing.resources[0];
first ? (await resources.read("everything", first.uri)).contents.length : 0
