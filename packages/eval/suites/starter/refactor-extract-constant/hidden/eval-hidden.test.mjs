import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TAX_RATE, taxOf, withTax } from './price.mjs';
test('one TAX_RATE, used by both', () => {
  assert.equal(TAX_RATE, 0.2);
  assert.equal(withTax(100), 120);
  assert.equal(taxOf(50), 10);
  assert.equal(readFileSync(new URL('./price.mjs', import.meta.url), 'utf8').match(/0\.2/g).length, 1);
});
