import { test } from 'node:test';
import assert from 'node:assert/strict';
import { max } from './max.mjs';
test('max of negatives and of nothing', () => {
  assert.equal(max([-3, -1, -7]), -1);
  assert.equal(max([2, 9, 4]), 9);
  assert.equal(max([]), undefined);
});
