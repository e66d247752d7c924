const d = new Date(Date.UTC(2026, 0, 31));
d.setUTCDate(d.getUTCDate() + 1);
d.toISOString().slice(0, 10)
