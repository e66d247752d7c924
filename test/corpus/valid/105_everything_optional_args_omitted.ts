const links = await tools.everything.get_resource_links();
Array.isArray(links)
