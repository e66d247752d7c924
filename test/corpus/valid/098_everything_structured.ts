const weather = await tools.everything.get_structured_content({ location: "Chicago" });
weather.temperature > -100
