import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as total from './total.mjs';
test('calculateTotal, and calc as its alias', () => {
  const items = [{ price: 2, quantity: 3 }, { price: 1, quantity: 4 }];
  assert.equal(total.calculateTotal(items), 10);
  assert.equal(total.calc, total.calculateTotal);
});
