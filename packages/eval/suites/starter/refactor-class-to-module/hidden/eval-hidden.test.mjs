import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as counter from './counter.mjs';
test('a factory, not a class', () => {
  const c = counter.createCounter(5);
  c.increment();
  assert.equal(c.value(), 6);
  assert.equal(counter.createCounter().value(), 0);
  assert.ok(!/\bclass\b/.test(readFileSync(new URL('./counter.mjs', import.meta.url), 'utf8')));
});
