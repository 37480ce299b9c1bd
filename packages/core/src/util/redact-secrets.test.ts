import { describe, expect, it } from 'vitest';
import { redactSecrets, secretValuesFromEnv, serializeError } from '@troupe/core';

describe('redactSecrets', () => {
  it('redacts values of secret-looking env vars and well-known key shapes', () => {
    const env = { ANTHROPIC_API_KEY: 'abc-secret-1', GH_TOKEN: 'tok-2222', HOME: '/home/u', PATH: '/bin' };
    const secrets = secretValuesFromEnv(env);
    expect(secrets.sort()).toEqual(['abc-secret-1', 'tok-2222']);
    const text = 'key abc-secret-1 token tok-2222 home /home/u and sk-proj-AAAAAAAAAAAAAAAAAAAAAA and AIzaSyDUMMYDUMMYDUMMYDUMMY12';
    expect(redactSecrets(text, secrets)).toBe('key [REDACTED] token [REDACTED] home /home/u and [REDACTED] and [REDACTED]');
  });

  it('hides a secret that contains another one', () => {
    expect(redactSecrets('value: outer-inner-secret', ['inner', 'outer-inner-secret'])).toBe('value: [REDACTED]');
  });

  it('serializeError keeps name, code and a redacted message', () => {
    const error = Object.assign(new Error('bad key sk-ant-api03-XXXXXXXXXXXX'), { code: 'E_AUTH' });
    expect(serializeError(error)).toEqual({ name: 'Error', message: 'bad key [REDACTED]', code: 'E_AUTH' });
    expect(serializeError('plain string')).toEqual({ name: 'Error', message: 'plain string' });
  });
});
