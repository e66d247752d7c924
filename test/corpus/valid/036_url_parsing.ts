const url = new URL("https://example.com/a/b?x=1&y=2");
({ path: url.pathname, x: url.searchParams.get("x") })
