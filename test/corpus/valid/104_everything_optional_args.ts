const links = await tools.everything.get_resource_links({ count: 2 });
Array.isArray(links)
