const answer = await tools.files.list_allowed_directories();
typeof answer.content
