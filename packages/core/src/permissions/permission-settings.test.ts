import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { resolvePermissionSettings } from './permission-settings';

describe('resolvePermissionSettings', () => {
  it('is off without permissions or a policy file, and on with a policy file alone', () => {
    expect(resolvePermissionSettings({}, 'x')).toBeUndefined();
    expect(resolvePermissionSettings({ policyFile: '/p.json' }, 'x')).toEqual({});
  });

  it('compiles a policy given as data, so a bad rule fails now, naming it', () => {
    const resolved = resolvePermissionSettings({ permissions: { policy: { allow: ['read_file'] } } }, 'x');
    expect(resolved?.policy && 'rules' in resolved.policy).toBe(true);
    expect(() => resolvePermissionSettings({ permissions: { policy: { deny: ['Bash(rm *'] } } }, 'test settings')).toThrow(/deny\[0\]/);
  });

  it('refuses a file and a policy together, and a callback that is no function', () => {
    expect(() => resolvePermissionSettings({ policyFile: '/p.json', permissions: { policy: {} } }, 'x')).toThrow(ConfigError);
    expect(() => resolvePermissionSettings({ permissions: { canUseTool: 'yes' as never } }, 'x')).toThrow(/canUseTool: expected a function/);
  });
});
