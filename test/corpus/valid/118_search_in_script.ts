const answer = search("key value");
answer.results.map((hit) => hit.path).slice(0, 3)
