// @corpus {"stdin": "a\nb\n\nc\n"}
stdin().lines().map((line) => line.toUpperCase())
