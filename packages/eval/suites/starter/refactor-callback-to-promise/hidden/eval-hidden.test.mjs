import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadUser } from './user.mjs';
test('returns a promise', async () => {
  assert.deepEqual(await loadUser(1), { id: 1, name: 'Ada' });
  await assert.rejects(loadUser(2), /unknown user/);
});
