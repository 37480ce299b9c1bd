import { ConfigError, TroupeError } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { resolveCodexAdapterSettings } from './codex-adapter-settings';

const configError = (settings: unknown): ConfigError => {
  try {
    resolveCodexAdapterSettings(settings);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('Codex adapter settings', () => {
  it('defaults', () => {
    expect(resolveCodexAdapterSettings()).toMatchInlineSnapshot(`
      {
        "baseArgs": [
          "exec",
          "--json",
          "--skip-git-repo-check",
        ],
        "command": "codex",
        "disableTelemetry": true,
        "extraArgs": [],
        "installHint": "npm install -g @openai/codex",
        "model": "gpt-5.5",
        "permissionMode": "ask",
        "promptDelivery": "argument",
        "provider": "auto",
        "systemPromptMode": "developer",
      }
    `);
  });

  it('names every bad field', () => {
    const error = configError({
      command: '',
      permissionMode: 'yolo',
      requestMaxRetries: -1,
      streamMaxRetries: 1.5,
      baseUrl: 'ftp://example.com',
      codexHome: 'relative/home',
      disableTelemetry: 'no',
      extraArgs: [1],
    });
    expect(TroupeError.hasCode(error, 'CONFIG_INVALID')).toBe(true);
    expect(error.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'baseUrl',
      'codexHome',
      'command',
      'disableTelemetry',
      'extraArgs.0',
      'permissionMode',
      'requestMaxRetries',
      'streamMaxRetries',
    ]);
    expect(error.message).toContain('permissionMode');
    expect(error.message).toContain('codexHome: codexHome must be an absolute path');
  });

  it('rejects unknown keys (typos)', () => {
    const error = configError({ permisionMode: 'full-auto' });
    expect(error.message).toContain('permisionMode');
  });

  it('rejects base args that would not produce JSONL from `codex exec`', () => {
    expect(configError({ baseArgs: ['exec'] }).message).toContain('must contain "--json"');
    expect(configError({ baseArgs: ['--json'] }).message).toContain('must contain "exec"');
  });

  it('createCodexAdapter throws the ConfigError', () => {
    expect(() => createCodexAdapter({ systemPromptMode: 'append' as never })).toThrow(ConfigError);
  });
});
