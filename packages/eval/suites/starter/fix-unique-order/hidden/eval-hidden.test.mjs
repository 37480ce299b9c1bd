import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from './unique.mjs';
test('keeps first occurrences in order', () => {
  assert.deepEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2]);
  assert.deepEqual(unique(['b', 'a', 'b']), ['b', 'a']);
});
