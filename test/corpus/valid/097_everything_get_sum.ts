await tools.everything.get_sum({ a: 2, b: 3 })
