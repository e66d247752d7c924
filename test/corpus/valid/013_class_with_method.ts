class Counter {
  #n = 0;
  inc(): number {
    return ++this.#n;
  }
}
const c = new Counter();
c.inc();
c.inc()
