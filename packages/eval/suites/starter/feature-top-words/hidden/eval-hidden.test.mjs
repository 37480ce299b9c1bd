import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topWords } from './top-words.mjs';
test('top words', () => {
  assert.deepEqual(topWords('The cat and the hat. THE end, and done', 2), [['the', 3], ['and', 2]]);
  assert.deepEqual(topWords('b a', 5), [['a', 1], ['b', 1]]);
});
