(2n ** 64n).toString()
