import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNumberList } from './parse-list.mjs';
test('trims and skips empty items', () => {
  assert.deepEqual(parseNumberList('1, 2,3,, 4 '), [1, 2, 3, 4]);
  assert.deepEqual(parseNumberList(''), []);
});
