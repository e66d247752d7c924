(1234.5678).toFixed(2) + " " + new Intl.NumberFormat("en-US").format(1234567)
