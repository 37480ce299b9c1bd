import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countWords } from './count-words.mjs';
test('counts words across whitespace runs', () => {
  assert.equal(countWords('  two   words '), 2);
  assert.equal(countWords('one\ttwo\nthree'), 3);
  assert.equal(countWords(''), 0);
});
