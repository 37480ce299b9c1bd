import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from './slugify.mjs';
test('slugify', () => {
  assert.equal(slugify('  Hello, World! 2024 '), 'hello-world-2024');
  assert.equal(slugify('Already-a-slug'), 'already-a-slug');
});
