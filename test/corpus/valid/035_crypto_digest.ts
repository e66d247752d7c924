const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("x"));
Array.from(new Uint8Array(bytes)).slice(0, 4).map((b) => b.toString(16).padStart(2, "0")).join("")
