import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fizzbuzz } from './fizzbuzz.mjs';
test('fizzbuzz', () => {
  assert.deepEqual(fizzbuzz(15).slice(-6), ['Buzz', '11', 'Fizz', '13', '14', 'FizzBuzz']);
  assert.deepEqual(fizzbuzz(5), ['1', '2', 'Fizz', '4', 'Buzz']);
});
