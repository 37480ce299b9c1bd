// Secret canary, console and warnings: the CLI's console hides secrets write by write (`redactingIo`), so
// a key streamed over several text deltas, printed as they come, is whole on the terminal unless the
// deltas were redacted as one stream at the source. Warnings emitted during the turn are checked too.
import { PassThrough } from 'node:stream';
import { EventBus } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { describe, expect, it } from 'vitest';
import { redactingIo, type CliIo } from '../cli-io';
import { canaryLeaks, openSecretCanary } from '../testing/secret-canary-test-kit';

describe('no secret reaches the console or a warning', () => {
  it('text deltas printed as they stream, through the redacting console', async () => {
    const canary = openSecretCanary();
    let printed = '';
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const io: CliIo = redactingIo({
        stdout: { write: (text: string) => (printed += text) },
        stderr: { write: (text: string) => (printed += text) },
        stdin: new PassThrough(),
        env: process.env,
        cwd: canary.dir,
      });
      const bus = new EventBus();
      bus.on('agent:part', (event) => {
        const { part } = event.payload;
        if (part.type === 'text-delta') io.stdout.write(part.text);
        else if (part.type === 'tool-call') io.stdout.write(`\n[${part.toolName}] ${JSON.stringify(part.input)}\n`);
        else if (part.type === 'tool-result') io.stdout.write(`${JSON.stringify(part.output)}\n`);
      });
      const { result } = await canary.runTurn(bus);
      io.stdout.write(`\n${result.text}\n`);
    } finally {
      process.off('warning', onWarning);
      canary.close();
    }
    expect(printed).toContain(`The token is ${REDACTED} and the password ${REDACTED}`);
    expect(canaryLeaks(printed)).toEqual({});
    expect(canaryLeaks(warnings.join('\n'))).toEqual({});
  });
});
