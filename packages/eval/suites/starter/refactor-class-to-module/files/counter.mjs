export class Counter {
  constructor(start = 0) {
    this.count = start;
  }
  increment() {
    this.count += 1;
  }
  value() {
    return this.count;
  }
}
