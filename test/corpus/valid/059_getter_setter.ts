class Temp {
  #c = 0;
  get f() {
    return this.#c * 9 / 5 + 32;
  }
  set c(value: number) {
    this.#c = value;
  }
}
const t = new Temp();
t.c = 100;
t.f
