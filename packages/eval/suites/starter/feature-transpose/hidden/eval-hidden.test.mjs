import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transpose } from './matrix.mjs';
test('transpose', () => {
  assert.deepEqual(transpose([[1, 2, 3], [4, 5, 6]]), [[1, 4], [2, 5], [3, 6]]);
  assert.deepEqual(transpose([]), []);
});
