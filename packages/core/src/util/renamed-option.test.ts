import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@troupe/core';
import { readRenamedOption } from '@troupe/core/util';

describe('readRenamedOption', () => {
  const option = { name: 'maxAttempts', deprecatedName: 'attempts', where: 'test options', warning: { message: 'attempts is deprecated', code: 'TROUPE_TEST_RENAMED' } };

  it('reads the new name, else the old one with one warning per place, and refuses both', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      expect(readRenamedOption({ maxAttempts: 3 }, option)).toBe(3);
      expect(readRenamedOption({}, option)).toBeUndefined();
      expect(readRenamedOption({ attempts: 4 }, option)).toBe(4);
      expect(readRenamedOption({ attempts: 5 }, option)).toBe(5);
      expect(() => readRenamedOption({ maxAttempts: 3, attempts: 3 }, option)).toThrow(InvalidArgumentError);
      expect(() => readRenamedOption({ maxAttempts: 3, attempts: 3 }, option)).toThrow('test options.attempts');
    } finally {
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
    }
    expect(warnings.filter((warning) => (warning as { code?: string }).code === 'TROUPE_TEST_RENAMED')).toHaveLength(1);
  });
});
