import type { OutputLine } from './process-outcome';

/** Buffers lines for one consumer of `run.lines()`. */
export class LineQueue implements AsyncIterableIterator<OutputLine> {
  private readonly items: OutputLine[] = [];
  private waiting: ((result: IteratorResult<OutputLine>) => void) | undefined;
  private ended = false;

  constructor(private readonly detach: () => void) {}

  push(line: OutputLine): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: line, done: false });
    } else this.items.push(line);
  }

  end(): void {
    this.ended = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<OutputLine>> {
    const item = this.items.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<OutputLine>> {
    this.items.length = 0;
    this.detach();
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<OutputLine> {
    return this;
  }
}

