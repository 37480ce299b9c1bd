import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toRoman } from './roman.mjs';
test('roman numerals', () => {
  assert.equal(toRoman(4), 'IV');
  assert.equal(toRoman(1994), 'MCMXCIV');
  assert.equal(toRoman(3999), 'MMMCMXCIX');
});
