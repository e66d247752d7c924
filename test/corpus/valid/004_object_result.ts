({ ok: true, count: 3 })
