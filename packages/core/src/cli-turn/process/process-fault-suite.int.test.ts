// Fault suite: 1,000+ mixed faulty agent processes (crash, hang, garbage, a 50 MB line, TERM-ignoring,
// grandchildren, setsid, nohup, double fork, stdout closed early, random aborts and timeouts), run
// concurrently through the public runner; then no process of the suite may be left, and no handle.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runProcess, trackedProcessGroupCount, type ProcessOutcome, type RunOptions } from '@troupe/core/cli-turn';
import { type ProcessConfig } from '@troupe/core';
import { fakeAgentProcessConfig } from '@troupe/core/testing';

/** Every process of the suite carries this in its environment (the suite's own mark, not Troupe's token). */
const MARK = `troupe-fault-suite-${randomUUID()}`;
const RUNS = 1_050;
const CONCURRENCY = 16;
const jsonl = { type: 'jsonl', completionTypes: ['result'] } as const;
const RESULT = `echo '{"type":"result","result":"ok"}'`;

interface FaultCase {
  name: string;
  /** Relative frequency. */
  weight: number;
  config(): ProcessConfig;
  options(): RunOptions;
  /** Outcome statuses this fault may end with. */
  expect: ProcessOutcome['status'][];
}

const sh = (script: string): ProcessConfig => ({ command: '/bin/sh', args: ['-c', script] });
const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

function abortAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('fault suite: random abort')), ms).unref();
  return controller.signal;
}

const CASES: FaultCase[] = [
  { name: 'completes', weight: 8, config: () => sh(`echo '{"type":"text"}'; ${RESULT}`), options: () => ({ completion: jsonl }), expect: ['completed'] },
  { name: 'crash', weight: 8, config: () => sh(`echo '{"type":"text"}'; echo 'Error: boom' >&2; exit 3`), options: () => ({ completion: jsonl }), expect: ['failed'] },
  { name: 'killed by a signal', weight: 4, config: () => sh('kill -SEGV $$'), options: () => ({}), expect: ['failed'] },
  { name: 'hang, then timeout', weight: 8, config: () => sh('echo started; exec sleep 1000'), options: () => ({ completion: jsonl, timeoutMs: randomInt(20, 200), killGraceMs: 100 }), expect: ['timed-out'] },
  {
    name: 'garbage',
    weight: 6,
    config: () => sh(`head -c ${randomInt(1, 64) * 1024} /dev/urandom; printf '\\n{not json\\n'; exit 0`),
    options: () => ({}),
    expect: ['completed'],
  },
  {
    name: 'TERM-ignoring, aborted',
    weight: 8,
    config: () => sh(`trap '' TERM; echo started; exec sleep 1000`),
    options: () => ({ completion: jsonl, signal: abortAfter(randomInt(0, 100)), killGraceMs: 100 }),
    expect: ['canceled'],
  },
  { name: 'grandchildren', weight: 8, config: () => sh(`sleep 1000 & sleep 1000 & (trap '' TERM; exec sleep 1000) & ${RESULT}`), options: () => ({ completion: jsonl, killGraceMs: 100, exitGraceMs: 50 }), expect: ['completed'] },
  { name: 'setsid', weight: 10, config: () => sh(`setsid sh -c "trap '' TERM HUP; exec sleep 1000" & ${RESULT}`), options: () => ({ completion: jsonl, killGraceMs: 100, exitGraceMs: 50 }), expect: ['completed'] },
  { name: 'nohup', weight: 8, config: () => sh(`nohup sleep 1000 >/dev/null 2>&1 & ${RESULT}`), options: () => ({ completion: jsonl, killGraceMs: 100, exitGraceMs: 50 }), expect: ['completed'] },
  {
    name: 'double fork',
    weight: 10,
    config: () => sh(`(setsid sh -c "sleep 1000 & (trap '' TERM; exec sleep 1000) & exit 0" &); ${RESULT}; exec sleep 1000`),
    options: () => ({ completion: jsonl, killGraceMs: 100, exitGraceMs: 50 }),
    expect: ['completed'],
  },
  {
    name: 'setsid, then aborted mid-turn',
    weight: 6,
    config: () => sh(`setsid sh -c 'exec sleep 1000' & echo started; exec sleep 1000`),
    options: () => ({ completion: jsonl, signal: abortAfter(randomInt(5, 80)), killGraceMs: 100 }),
    expect: ['canceled'],
  },
  { name: 'stdout closed early, still running', weight: 6, config: () => sh('echo started; exec 1>&-; exec sleep 1000'), options: () => ({ completion: jsonl, timeoutMs: randomInt(30, 150), killGraceMs: 100 }), expect: ['timed-out'] },
  { name: 'stdout closed early, exits', weight: 4, config: () => sh('echo started; exec 1>&-; sleep 0.05; exit 0'), options: () => ({}), expect: ['completed'] },
  {
    name: 'random abort',
    weight: 6,
    config: () => sh(`sleep 0.$(( $$ % 3 )); ${RESULT}`),
    options: () => ({ completion: jsonl, signal: abortAfter(randomInt(0, 300)), killGraceMs: 100 }),
    expect: ['completed', 'canceled'],
  },
  {
    name: 'random timeout',
    weight: 6,
    config: () => sh(`sleep 0.$(( $$ % 3 )); ${RESULT}`),
    options: () => ({ completion: jsonl, timeoutMs: randomInt(20, 300), killGraceMs: 100 }),
    expect: ['completed', 'timed-out'],
  },
  { name: 'missing command', weight: 2, config: () => ({ command: 'troupe-fault-suite-no-such-cli' }), options: () => ({}), expect: ['failed'] },
  {
    name: 'node CLI leaving its group',
    weight: 2,
    config: () => fakeAgentProcessConfig({ escape: (['setsid', 'double-fork', 'nohup'] as const)[randomInt(0, 2)], lines: ['{"type":"result"}'], hang: true }),
    options: () => ({ completion: jsonl, killGraceMs: 100, exitGraceMs: 50 }),
    expect: ['completed'],
  },
];

/** Live (non-zombie) processes whose environment holds the suite's mark: `pid command line`. */
function markedProcesses(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').includes(MARK)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (!/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function pickCase(): FaultCase {
  const total = CASES.reduce((sum, c) => sum + c.weight, 0);
  let roll = Math.random() * total;
  for (const c of CASES) {
    roll -= c.weight;
    if (roll < 0) return c;
  }
  return CASES[0] as FaultCase;
}

function handleCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

describe.runIf(process.platform === 'linux')('process fault suite (Linux: /proc shows what is left)', () => {
  it(`${RUNS} mixed faulty runs leave no process and no handle`, async () => {
    const before = handleCounts();
    // Three 50 MB lines (one line each, no JSON: complete on exit).
    const bigLine: FaultCase = { name: '50 MB line', weight: 0, config: () => sh(`head -c 52428800 /dev/zero | tr '\\0' x; echo`), options: () => ({ maxOutputChars: 1024 }), expect: ['completed'] };
    const plan: FaultCase[] = [bigLine, bigLine, bigLine];
    for (const c of CASES) plan.push(c); // every kind at least once
    while (plan.length < RUNS) plan.push(pickCase());

    const tally = new Map<string, Map<string, number>>();
    const wrong: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < plan.length) {
        const fault = plan[next++] as FaultCase;
        const config = fault.config();
        const run = runProcess({ ...config, env: { ...config.env, FAULT_SUITE_MARK: MARK } }, fault.options());
        const outcome = await run.outcome;
        await run.exited;
        const byStatus = tally.get(fault.name) ?? new Map<string, number>();
        byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1);
        tally.set(fault.name, byStatus);
        if (!fault.expect.includes(outcome.status)) wrong.push(`${fault.name}: ${outcome.status} ${outcome.status !== 'completed' ? outcome.error.message : ''}`);
        if (fault === bigLine && outcome.status === 'completed') expect(outcome.lineCount).toBe(1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    console.log(
      `fault suite: ${plan.length} runs\n` +
        [...tally].map(([name, byStatus]) => `  ${name}: ${[...byStatus].map(([status, n]) => `${n} ${status}`).join(', ')}`).join('\n'),
    );
    expect(wrong).toEqual([]);
    const left = markedProcesses();
    if (left.length > 0) console.log(`left behind:\n  ${left.join('\n  ')}`);
    expect(left).toEqual([]);
    expect(trackedProcessGroupCount()).toBe(0);
    // No child process, pipe or timer of a run is left behind.
    const after = handleCounts();
    for (const type of ['ProcessWrap', 'PipeWrap', 'Timeout'] as const) expect(after[type] ?? 0, type).toBeLessThanOrEqual(before[type] ?? 0);
  }, 300_000);
});
