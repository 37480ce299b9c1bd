import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../cli-errors';
import { WORKER_OPTIONS } from './cli-command-options';
import { parseCliArgs, repeatedOption } from './parse-cli-args';

describe('repeatable options', () => {
  it('keeps every value of a repeatable option, in order (troupe worker --allow-root A --allow-root B)', () => {
    const { options } = parseCliArgs(['--allow-root', '/srv/a', '--allow-root=/srv/b c', '--redis', 'redis://127.0.0.1:1'], WORKER_OPTIONS, 'worker');
    expect(repeatedOption(options['allow-root'])).toEqual(['/srv/a', '/srv/b c']);
    expect(repeatedOption(options['work-dir'])).toEqual([]);
  });

  it('still refuses any other option given twice', () => {
    expect(() => parseCliArgs(['--redis', 'redis://a', '--redis', 'redis://b'], WORKER_OPTIONS, 'worker')).toThrow(CliUsageError);
  });
});
