const page = search("", { namespace: "everything", limit: 2 });
({ shown: page.results.length, next: page.next })
