try {
  JSON.parse("{");
} catch (e) {
  console.log("bad json:", e.message);
}
