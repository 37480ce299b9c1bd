import { describe, expect, it } from 'vitest';
import { englishLooperTexts, looperCommandSchema, parseLooperCommand, simplifiedChineseLooperTexts } from '../index';

describe('parseLooperCommand', () => {
  it('parses the four JSON commands', () => {
    expect(parseLooperCommand('{"type":"start","task":"Create hello.txt"}')).toEqual({ success: true, command: { type: 'start', task: 'Create hello.txt' } });
    expect(parseLooperCommand(' {"type":"stop"} ')).toEqual({ success: true, command: { type: 'stop' } });
    expect(parseLooperCommand('{"type":"status"}')).toEqual({ success: true, command: { type: 'status' } });
    expect(parseLooperCommand('{"type":"add_pending","task":"  Add logging "}')).toEqual({ success: true, command: { type: 'add_pending', task: 'Add logging' } });
  });

  it('treats plain text as start (seed §2), including text that merely contains braces or brackets', () => {
    expect(parseLooperCommand('Optimize the login page')).toEqual({ success: true, command: { type: 'start', task: 'Optimize the login page' } });
    expect(parseLooperCommand('[urgent] fix {config} parsing')).toEqual({ success: true, command: { type: 'start', task: '[urgent] fix {config} parsing' } });
  });

  it('explains malformed JSON, unknown types, missing or empty tasks, and non-strings', () => {
    expect(parseLooperCommand('{"type":"start",')).toMatchObject({ success: false, error: expect.stringMatching(/^malformed JSON \(/) });
    expect(parseLooperCommand('{"type":"restart"}')).toEqual({ success: false, error: 'unknown command type "restart"; expected one of start, stop, status, add_pending, merge' });
    expect(parseLooperCommand('{"task":"x"}')).toEqual({ success: false, error: 'the JSON command has no "type" string' });
    expect(parseLooperCommand('{"type":"start"}')).toEqual({ success: false, error: '"start" command: "task" is required' });
    expect(parseLooperCommand('{"type":"add_pending","task":"   "}')).toEqual({ success: false, error: '"add_pending" command: "task" must not be empty' });
    expect(parseLooperCommand('{"type":"start","task":42}')).toMatchObject({ success: false, error: expect.stringMatching(/^"start" command: "task" /) });
    expect(parseLooperCommand('   ')).toEqual({ success: false, error: 'the command is empty' });
    expect(parseLooperCommand(null)).toEqual({ success: false, error: 'a command must be a string, got null' });
  });

  it('calls a field of the wrong type wrong, not missing, and names the type it needs and what it got', () => {
    expect(parseLooperCommand('{"type":"stop","now":"x"}')).toEqual({ success: false, error: '"stop" command: "now" must be a boolean, not the string "x"' });
    expect(parseLooperCommand('{"type":"start","task":42}')).toEqual({ success: false, error: '"start" command: "task" must be a string, not the number 42' });
    expect(parseLooperCommand('{"type":"add_pending","task":null}')).toEqual({ success: false, error: '"add_pending" command: "task" must be a string, not null' });
    expect(parseLooperCommand('{"type":"add_pending","task":["a"]}')).toEqual({ success: false, error: '"add_pending" command: "task" must be a string, not an array' });
    expect(parseLooperCommand('{"type":"stop","now":null}')).toEqual({ success: false, error: '"stop" command: "now" must be a boolean, not null' });
  });

  it('words the wrong type in the language of its texts', () => {
    expect(parseLooperCommand('{"type":"stop","now":"x"}', simplifiedChineseLooperTexts.command)).toEqual({
      success: false,
      error: '"stop" 命令: "now" 无效（应为 boolean，实际为 string "x"）',
    });
    expect(parseLooperCommand('{"type":"start"}', simplifiedChineseLooperTexts.command)).toEqual({ success: false, error: '"start" 命令: "task" 为必填项' });
    // A catalogue written before `wrongType` existed still gets a clear (English) detail.
    const { wrongType: _omitted, ...older } = englishLooperTexts.command;
    expect(parseLooperCommand('{"type":"start","task":true}', older)).toEqual({ success: false, error: '"start" command: "task" must be a string, not the boolean true' });
  });

  it('exports the zod schema of the commands', () => {
    expect(looperCommandSchema.safeParse({ type: 'stop' }).success).toBe(true);
    expect(looperCommandSchema.safeParse({ type: 'start' }).success).toBe(false);
  });
});

describe('parseLooperCommand without zod (checked by hand, the schema only for a refused command)', () => {
  const COMMANDS = [
    { type: 'start', task: ' T ' },
    { type: 'start', task: '   ' },
    { type: 'start', task: 3 },
    { type: 'start' },
    { type: 'add_pending', task: 'A', extra: 1 },
    { type: 'add_pending', task: null },
    { type: 'stop' },
    { type: 'stop', now: true },
    { type: 'stop', now: false },
    { type: 'stop', now: 'yes' },
    { type: 'stop', now: null },
    { type: 'status', verbose: true },
  ];

  it('returns what looperCommandSchema returns, and refuses what it refuses', () => {
    for (const json of COMMANDS) {
      const parsed = looperCommandSchema.safeParse(json);
      const result = parseLooperCommand(JSON.stringify(json));
      if (parsed.success) expect(result).toStrictEqual({ success: true, command: parsed.data });
      else expect(result.success, JSON.stringify(json)).toBe(false);
    }
  });
});
