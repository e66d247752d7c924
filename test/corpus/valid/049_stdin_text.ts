// @corpus {"stdin": "  hello  "}
stdin().text().length
