import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPalindrome } from './palindrome.mjs';
test('ignores case and punctuation', () => {
  assert.equal(isPalindrome('A man, a plan, a canal: Panama'), true);
  assert.equal(isPalindrome('Racecar'), true);
  assert.equal(isPalindrome('hello'), false);
});
