// @corpus {"stdin": "{\"n\": 2}"}
stdin().json().n * 21
