import { describe, expect, it } from 'vitest';
import { createSecretRedactor, isSecretEnvName, REDACTED, redactSecrets, secretValuesFromEnv, serializeError } from '@troupe/core/util';

describe('redactSecrets', () => {
  it('redacts values of secret-looking env vars and well-known key shapes', () => {
    const env = { ANTHROPIC_API_KEY: 'abc-secret-1', GH_TOKEN: 'tok-2222', HOME: '/home/u', PATH: '/bin' };
    const secrets = secretValuesFromEnv(env);
    expect(secrets.sort()).toEqual(['abc-secret-1', 'tok-2222']);
    const text = 'key abc-secret-1 token tok-2222 home /home/u and sk-proj-AAAAAAAAAAAAAAAAAAAAAA and AIzaSyDUMMYDUMMYDUMMYDUMMY12';
    expect(redactSecrets(text, secrets)).toBe('key [REDACTED] token [REDACTED] home /home/u and [REDACTED] and [REDACTED]');
  });

  it('hides a secret pattern whole when it has capture groups of its own', () => {
    // The kept `Bearer ` word was read from group 1: a caller's group there came out before [REDACTED].
    const redactor = createSecretRedactor({ secrets: [/acme_([a-z0-9]{12})/] });
    expect(redactor.redact('id acme_abcdef123456 ok, Bearer tok3n-0123456789')).toBe(`id ${REDACTED} ok, Bearer ${REDACTED}`);
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

describe('createSecretRedactor', () => {
  it('knows which variable names hold secrets, and skips short values and well-known non-secrets', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'GH_TOKEN', 'DB_PASSWORD', 'CLIENT_SECRET', 'AUTH_HEADER', 'SESSION_COOKIE']) expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ['HOME', 'PATH', 'LANG']) expect(isSecretEnvName(name), name).toBe(false);
    // SSH_AUTH_SOCK grants access (never passed on) but its value is a path, not secret text (not redacted).
    expect(isSecretEnvName('SSH_AUTH_SOCK')).toBe(true);
    expect(
      secretValuesFromEnv({ XDG_SESSION_CLASS: 'user', XDG_SESSION_TYPE: 'wayland-session', SSH_AUTH_SOCK: '/tmp/ssh-abc/agent.1', SOME_TOKEN: 'short', API_KEY: 'long-enough-value' }),
    ).toEqual(['long-enough-value']);
  });

  it('hides every well-known key shape and bearer token, and leaves prose alone', () => {
    const redactor = createSecretRedactor();
    const shapes = [
      'sk-ant-api03-AbCdEf123456',
      'sk-proj-AbCdEfGhIjKlMnOpQrSt',
      'sk-AbCdEfGhIjKlMnOpQrSt',
      'AIzaSyAbCdEfGhIjKlMnOpQrStUv',
      'ghp_AbCdEfGhIjKlMnOpQrStUv12',
      'github_pat_11AbCdEfGhIjKlMnOpQrSt_uv',
      'AKIAABCDEFGHIJKLMNOP',
    ];
    for (const shape of shapes) expect(redactor.redact(`x ${shape} y`), shape).toBe(`x ${REDACTED} y`);
    expect(redactor.redact('Authorization: Bearer abc.def123.ghi456')).toBe(`Authorization: Bearer ${REDACTED}`);
    const prose = 'Bearer authentication uses a task-assessment framework; ask for sk- prefixed keys.';
    expect(redactor.redact(prose)).toBe(prose);
  });

  it('redacts values deeply (keys too) without touching what holds no secret', () => {
    const redactor = createSecretRedactor({ secrets: ['canary-4417'], env: { MY_TOKEN: 'env-token-value-1' } });
    const clean = { a: [1, 'two', { three: null }] };
    expect(redactor.redactValue(clean)).toBe(clean);
    expect(redactor.redactValue({ list: ['canary-4417', 'ok'], nested: { 'env-token-value-1': 'env-token-value-1 here' } })).toEqual({
      list: [REDACTED, 'ok'],
      nested: { [REDACTED]: `${REDACTED} here` },
    });
    expect(redactor.extend([/zz-[0-9]{4}/]).redact('canary-4417 zz-1234')).toBe(`${REDACTED} ${REDACTED}`);
  });
});
