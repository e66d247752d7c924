await new Promise((resolve) => setTimeout(resolve, 10));
"waited"
