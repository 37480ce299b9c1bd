import { describe, expect, it } from 'vitest';
import { runProcess } from '@troupe/core/cli-turn';
import type { ProcessControlIo, ProcessControlStart } from '@troupe/core';
import { LineProtocolControl, LineSplitter, type AnswerSent } from '@troupe/core/util';

/**
 * A CLI that speaks a small control protocol: it reads its message, asks `ASK` questions (one line each, one write
 * for all), waits for an answer line per question on stdin, prints the answers, then waits for end of input before it
 * prints `{"type":"result"}` and exits.
 */
const askingCli = `
const asks = Number(process.env.ASK);
let buffer = '';
let message;
const answers = [];
let ended = false;
const finish = () => {
  if (!ended || answers.length < asks) return;
  process.stdout.write(JSON.stringify({ type: 'result', message, answers }) + '\\n');
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  buffer += text;
  let at;
  while ((at = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (message === undefined) {
      message = line;
      process.stdout.write(Array.from({ length: asks }, (_, id) => JSON.stringify({ type: 'ask', id }) + '\\n').join('') + '{"type":"partial"');
    } else answers.push(JSON.parse(line).answer);
  }
  if (answers.length === asks) process.stdout.write(',"done":true}\\n');
});
process.stdin.on('end', () => { ended = true; finish(); });
`;

/** Answers every `ask` line with `answer-<id>`, passes every line on, and ends stdin once all are answered. */
function answeringControl(asks: number, seen: { chunks: number; closed: number; message?: string | undefined }): ProcessControlStart {
  return (io) => {
    const splitter = new LineSplitter();
    let answered = 0;
    const onLine = (line: string) => {
      const json = JSON.parse(line) as { type: string; id?: number };
      if (json.type === 'ask') {
        io.write(`${JSON.stringify({ answer: `answer-${json.id}` })}\n`);
        if (++answered === asks) io.endInput();
      }
      io.emit(line);
    };
    return {
      chunk: (chunk, readAt) => {
        expect(readAt).toBeGreaterThan(0);
        seen.chunks++;
        splitter.push(chunk).forEach(onLine);
      },
      end: () => splitter.end().forEach(onLine),
      message: (message) => {
        seen.message = message;
        io.write(`${message}\n`);
        io.emit(JSON.stringify({ type: 'troupe_note', text: 'message sent' }));
      },
      close: () => void seen.closed++,
    };
  };
}

describe('process control (a protocol on the CLI’s own stdio)', () => {
  it('keeps stdin open for the answers, shows the control every chunk, and the turn reads only what it passes on', async () => {
    const seen = { chunks: 0, closed: 0 } as { chunks: number; closed: number; message?: string | undefined };
    const run = runProcess(
      { command: process.execPath, args: ['-e', askingCli], env: { ASK: '50' }, control: answeringControl(50, seen) },
      { message: 'hello', completion: { type: 'jsonl', completionTypes: ['result'] }, timeoutMs: 20_000 },
    );
    const types: string[] = [];
    for await (const { json } of run) types.push((json as { type: string }).type);
    const outcome = await run.outcome;
    await run.exited;
    expect(outcome.status).toBe('completed');
    expect(seen.message).toBe('hello');
    expect(seen.chunks).toBeGreaterThan(0);
    expect(seen.closed).toBe(1);
    // A line passed on before anyone iterates is still the turn's output.
    expect(outcome.output.split('\n')[0]).toBe('{"type":"troupe_note","text":"message sent"}');
    expect(types.filter((type) => type === 'ask')).toHaveLength(50);
    expect(types.at(-1)).toBe('result');
    // The line the CLI wrote in two pieces (`{"type":"partial"` … `,"done":true}`) reached the turn whole.
    expect(types).toContain('partial');
    const result = outcome.status === 'completed' ? (outcome.completionLine?.json as { message: string; answers: string[] }) : undefined;
    expect(result?.message).toBe('hello');
    expect(result?.answers).toEqual(Array.from({ length: 50 }, (_, id) => `answer-${id}`));
  });

  it('a control that throws is a warning, not a crash: the turn still ends by the CLI’s exit', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const run = runProcess(
        {
          command: process.execPath,
          args: ['-e', 'process.stdout.write("{\\"type\\":\\"x\\"}\\n")'],
          secrets: ['sk-control-secret-1234'],
          control: (io) => ({
            chunk: () => {
              throw new Error('bad chunk near sk-control-secret-1234');
            },
            end: () => {},
            message: () => io.endInput(),
            close: () => {},
          }),
        },
        { message: 'go', completion: { type: 'exit' }, timeoutMs: 20_000 },
      );
      const outcome = await run.outcome;
      expect(outcome.status).toBe('completed');
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((text) => text.includes('process control') && text.includes('(chunk)'))).toBe(true);
      expect(warnings.join('\n')).not.toContain('sk-control-secret-1234');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('rejects a control that is not a function, naming the field', () => {
    expect(() => runProcess({ command: process.execPath, control: 'yes' as never })).toThrow(/config\.control/);
  });
});

describe('LineProtocolControl (the frame of a line protocol control)', () => {
  /** Answers each `ask` line; records what order things happened in. */
  class Asker extends LineProtocolControl {
    readonly events: string[] = [];
    readonly sent: AnswerSent[] = [];
    constructor(io: ProcessControlIo) {
      super(io);
    }
    message(message: string | undefined): void {
      this.io.write(`${message}\n`);
    }
    protected onLines(lines: string[]): void {
      if (lines.some((line) => line.includes('"ask"'))) this.holdUntilNextTick();
      for (const line of lines) {
        const json = JSON.parse(line) as { type: string; id?: number };
        if (json.type === 'ask') {
          void this.sendAnswer(`${JSON.stringify({ answer: `answer-${json.id}` })}\n`).then((at) => {
            this.events.push(`answered ${json.id}`);
            this.sent.push(at);
            if (this.sent.length === 20) this.io.endInput(); // the CLI prints its result at end of input
          });
        }
        this.emit(line);
      }
    }
    protected override onExit(): void {
      this.events.push('exit');
    }
    protected override onGone(): void {
      this.events.push('gone');
    }
  }

  it('answers a chunk’s requests in one write before its lines reach the turn, and says gone once, after exit and end', async () => {
    let asker: Asker | undefined;
    const seenByTurn: string[] = [];
    const run = runProcess(
      {
        command: process.execPath,
        args: ['-e', askingCli],
        env: { ASK: '20' },
        control: (io) => {
          asker = new Asker({ ...io, emit: (line) => (asker!.events.push(`turn ${(JSON.parse(line) as { type: string }).type}`), io.emit(line)) });
          return asker;
        },
      },
      { message: 'hello', completion: { type: 'jsonl', completionTypes: ['result'] }, timeoutMs: 20_000 },
    );
    for await (const { json } of run) seenByTurn.push((json as { type: string }).type);
    expect((await run.outcome).status).toBe('completed');
    await run.exited;
    const events = asker!.events;
    // Every answer left before the first ask line reached the turn (the asks came in one write, so one chunk).
    expect(events.indexOf('answered 19')).toBeLessThan(events.indexOf('turn ask'));
    expect(new Set(asker!.sent.map((at) => at.handedAt)).size).toBe(1); // one write for the 20 answers
    for (const at of asker!.sent) expect(at.returnedAt).toBeGreaterThanOrEqual(at.handedAt);
    expect(seenByTurn.filter((type) => type === 'ask')).toHaveLength(20);
    expect(events.filter((event) => event === 'gone')).toEqual(['gone']);
    expect(events.indexOf('gone')).toBeGreaterThan(events.indexOf('exit'));
  });
});
