import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const run = (input: string, args: string[] = []) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main, ...args], { encoding: 'utf8', input, timeout: 90_000 });

describe('team-chat example (offline: real adapters over the fake agent CLI)', () => {
  it('runs the three-member discussion with the scripted human when stdin gives no lines', () => {
    const result = run('');
    expect(result.status, result.stderr).toBe(0);
    const said = result.stdout.split('\n').filter((line) => /^(Ada|Linus|You)[:>]/.test(line)).map((line) => line.split(' ').slice(0, 2).join(' '));
    expect(said).toEqual(['You: Design', 'Ada: I', 'Linus: Per-key', 'Ada: Good', 'Linus: Fail-open', 'You> Sounds', 'Ada: Summary:', 'Linus: Agreed.', 'You> /end']);
    // Markers are routing, not content.
    expect(result.stdout).not.toMatch(/^(Ada|Linus): .*\[(NEXT|DONE)/m);
    expect(result.stdout).toContain('Conversation ended (human-end): You ended the conversation (/end)');
    expect(result.stdout).toMatch(/8 turns, 8 messages in channel "team", 120 tokens, \$0\.000624\./);
  });

  it('takes the human lines from stdin: [NEXT] routes, [DONE] ends', () => {
    const result = run('Linus, is a token bucket overkill? [NEXT: linus]\nThanks, that settles it. [DONE]\n');
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const asked = lines.findIndex((line) => line.startsWith('You> Linus, is a token bucket overkill?'));
    expect(asked).toBeGreaterThan(0);
    expect(lines.slice(asked + 1).find((line) => /^(Ada|Linus):/.test(line))).toMatch(/^Linus: /);
    expect(result.stdout).toContain('Conversation ended (human-done): You ended the conversation with [DONE]');
  });

  it('rejects unknown arguments', () => {
    const result = run('', ['--lve']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown argument(s): --lve. Try --help.');
  });
});
