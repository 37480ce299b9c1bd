export class LruCache {
  constructor(capacity) {
    this.capacity = capacity;
  }
  get(key) {
    throw new Error('not implemented');
  }
  set(key, value) {
    throw new Error('not implemented');
  }
}
