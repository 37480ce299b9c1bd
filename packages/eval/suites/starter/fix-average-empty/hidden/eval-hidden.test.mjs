import { test } from 'node:test';
import assert from 'node:assert/strict';
import { average } from './average.mjs';
test('average', () => {
  assert.equal(average([]), 0);
  assert.equal(average([2, 4]), 3);
});
