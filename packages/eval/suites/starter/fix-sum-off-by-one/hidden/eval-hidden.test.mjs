import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sum } from './sum.mjs';
test('sums every number', () => {
  assert.equal(sum([1, 2, 3]), 6);
  assert.equal(sum([5]), 5);
  assert.equal(sum([]), 0);
});
