import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoize } from './memoize.mjs';
test('calls fn once per argument', () => {
  let calls = 0;
  const square = memoize((n) => (calls++, n * n));
  assert.equal(square(3), 9);
  assert.equal(square(3), 9);
  assert.equal(square(4), 16);
  assert.equal(calls, 2);
});
