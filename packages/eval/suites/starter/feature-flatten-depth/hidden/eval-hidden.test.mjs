import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { flatten } from './flatten.mjs';
test('flatten to a depth', () => {
  assert.deepEqual(flatten([1, [2, [3, [4]]]]), [1, 2, [3, [4]]]);
  assert.deepEqual(flatten([1, [2, [3, [4]]]], 2), [1, 2, 3, [4]]);
  assert.deepEqual(flatten([1, [2, [3, [4]]]], Infinity), [1, 2, 3, 4]);
  assert.ok(!readFileSync(new URL('./flatten.mjs', import.meta.url), 'utf8').includes('.flat('));
});
