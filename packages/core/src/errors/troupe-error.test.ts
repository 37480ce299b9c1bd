import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AbortError,
  AdapterNotFoundError,
  CompletionTimeoutError,
  ConfigError,
  ProcessError,
  TroupeError,
} from '@troupe/core';

describe('TroupeError', () => {
  it('carries a code and a cause, and subclasses carry structured fields', () => {
    const cause = new Error('spawn failed');
    const error = new ProcessError('boom', { command: 'claude', exitCode: 2, signal: null, stderrTail: 'oops', cause });
    expect(error).toBeInstanceOf(TroupeError);
    expect(error).toMatchObject({ code: 'PROCESS_FAILED', name: 'ProcessError', command: 'claude', exitCode: 2, stderrTail: 'oops' });
    expect(error.cause).toBe(cause);
    expect(new CompletionTimeoutError('slow', { timeoutMs: 5 })).toMatchObject({ code: 'COMPLETION_TIMEOUT', timeoutMs: 5 });
    expect(new AbortError()).toMatchObject({ code: 'ABORTED', message: 'The operation was aborted' });
  });

  it('isInstance works across duplicate copies of the package (Symbol.for marker)', async () => {
    // A second module instance stands in for a duplicate install or the CJS build.
    const specifier = './troupe-error.ts?duplicate-copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./troupe-error');
    expect(copy.TroupeError).not.toBe(TroupeError);
    const foreign = new copy.TroupeError('INVALID_STATE', 'from another copy');
    expect(foreign instanceof TroupeError).toBe(false);
    expect(TroupeError.isInstance(foreign)).toBe(true);
    expect(copy.TroupeError.isInstance(new AbortError())).toBe(true);
    expect(TroupeError.isInstance(new Error('plain'))).toBe(false);
    expect(TroupeError.isInstance({ code: 'ABORTED' })).toBe(false);
    expect(TroupeError.hasCode(new AbortError(), 'ABORTED')).toBe(true);
    expect(TroupeError.hasCode(new AbortError(), 'CONFIG_INVALID')).toBe(false);
  });

  it('AdapterNotFoundError lists the registered adapters', () => {
    const error = new AdapterNotFoundError('cursor', ['claude', 'codex']);
    expect(error.message).toContain('"cursor"');
    expect(error.message).toContain('claude, codex');
    expect(error.registered).toEqual(['claude', 'codex']);
  });

  it('AdapterNotFoundError suggests the real adapter packages, never a made-up one', () => {
    const unknown = new AdapterNotFoundError('nope', ['claude']);
    expect(unknown.message).not.toContain('@troupe/adapter-nope');
    expect(unknown.message).toBe(
      'No agent adapter registered for "nope". Registered adapters: claude. ' +
        "Troupe's adapters are claude (@troupe/adapter-claude), codex (@troupe/adapter-codex), gemini/gemini-acp (@troupe/adapter-gemini), acp (@troupe/adapter-acp). " +
        "For another CLI, register your own: registerAdapter({ type: 'nope', create: (definition) => createGenericAdapter(definition) }) from @troupe/core.",
    );
    // A published type that is not registered names its package and the call that registers it.
    expect(new AdapterNotFoundError('gemini', []).message).toBe(
      'No agent adapter registered for "gemini". Registered adapters: (none registered). ' +
        '"gemini" comes from @troupe/adapter-gemini: install it and call its registerGeminiCliAdapter() or registerGeminiAcpAdapter().',
    );
  });

  it('ConfigError keeps every zod issue path', () => {
    const schema = z.object({ agents: z.record(z.string(), z.object({ command: z.string(), baseArgs: z.array(z.string()) })) });
    const result = schema.safeParse({ agents: { claude: { command: 3, baseArgs: ['ok', 4] } } });
    if (result.success) throw new Error('expected failure');
    const error = ConfigError.fromZod('registry.json', result.error);
    expect(error.issues.map((issue) => issue.path)).toEqual([
      ['agents', 'claude', 'command'],
      ['agents', 'claude', 'baseArgs', 1],
    ]);
    expect(error.message).toContain('agents.claude.command');
    expect(error.message).toContain('agents.claude.baseArgs[1]');
    expect(error.message).toContain('registry.json');
  });
});
