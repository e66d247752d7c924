new TextEncoder().encode("héllo").length
