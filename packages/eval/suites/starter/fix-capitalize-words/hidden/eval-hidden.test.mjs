import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capitalizeWords } from './capitalize.mjs';
test('capitalizes each word', () => {
  assert.equal(capitalizeWords('hello big world'), 'Hello Big World');
  assert.equal(capitalizeWords(''), '');
});
