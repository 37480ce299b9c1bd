import { test } from 'node:test';
import assert from 'node:assert/strict';
import { range } from './range.mjs';
test('includes both ends', () => {
  assert.deepEqual(range(1, 5), [1, 2, 3, 4, 5]);
  assert.deepEqual(range(3, 3), [3]);
});
