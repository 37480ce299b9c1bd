import { AdapterRegistry, AgentManager, isGroupAlive } from '@troupe/core/cli-turn';
import { agentStreamPartSchema, type AgentAdapter, type MemberAgentConfig, type ProcessConfig } from '@troupe/core';
import { withFakeAgentCli } from './with-fake-agent-cli';

/** A recorded stream the adapter must turn into the expected answer. */
export interface ConformanceReplay {
  /** Name shown in failures. */
  name: string;
  /** Path of a `.stdout.jsonl` recording of the CLI. */
  stdoutFile: string;
  /** Final text the turn must end with (its `turn-end` part, and `parseResponse` of its whole output). */
  expectedText?: string;
  /** True when the recording is a failed turn (API error): `turn-end.isError` must be true. */
  expectError?: boolean;
  /** Exit code the real CLI ended with (replayed). Default 0. */
  exitCode?: number;
}

/** Options for {@link runAdapterConformance}. */
export interface AdapterConformanceOptions {
  /** Builds a fresh adapter (called once per check). */
  createAdapter: () => AgentAdapter;
  /** Recorded streams to replay through the adapter. At least one is recommended. */
  replays?: readonly ConformanceReplay[];
  /** A working directory that exists (default: the host's cwd). */
  workDir?: string;
  /** Extra lines `parseLine` must survive (default: a set of garbage). */
  garbageLines?: readonly string[];
}

/** One check of the suite. */
export interface ConformanceCheck {
  name: string;
  passed: boolean;
  /** Why it failed. */
  message?: string;
}

/** Result of {@link runAdapterConformance}. */
export interface ConformanceReport {
  adapterId: string;
  checks: ConformanceCheck[];
  /** The failed checks. */
  failures: ConformanceCheck[];
}

const DEFAULT_GARBAGE = [
  '',
  '   ',
  'not json at all',
  '{"broken json',
  '[1,2,3]',
  'null',
  '{}',
  '{"type":42}',
  '{"type":"unknown.event","x":{"y":[1]}}',
  '{"type":"result"}',
  '{"type":"assistant","message":null}',
  '{"type":"item.completed","item":null}',
  '{"type":"message","content":{"nested":true}}',
  '\u0000\u0001binary',
];

/**
 * The adapter conformance suite: every adapter — Troupe's and yours — should
 * pass it. It checks the v1 contract's shape, member-config layering (extra
 * args, env, work dir), that a system prompt is delivered exactly once and
 * differs per member, that `parseLine` survives garbage and only yields valid
 * parts, that recorded streams replayed through the real process runner end
 * with the expected text, that two turns of one adapter parsed line by line
 * in turn (each with its `startTurn` state) give what they give alone, and
 * that aborting a turn leaves no process behind.
 *
 * Framework-agnostic: it returns a report; {@link assertAdapterConformance}
 * throws with every failure listed.
 *
 * @example
 * ```ts
 * import { assertAdapterConformance } from '@troupe/core/testing';
 * it('conforms', async () => {
 *   await assertAdapterConformance({
 *     createAdapter: () => createMyAdapter(),
 *     replays: [{ name: 'text', stdoutFile: 'src/__fixtures__/text.stdout.jsonl', expectedText: 'Hello' }],
 *   });
 * });
 * ```
 */
export async function runAdapterConformance(options: AdapterConformanceOptions): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  const check = async (name: string, body: () => void | Promise<void>) => {
    try {
      await body();
      checks.push({ name, passed: true });
    } catch (error) {
      checks.push({ name, passed: false, message: error instanceof Error ? error.message : String(error) });
    }
  };
  const workDir = options.workDir ?? process.cwd();
  const adapter = options.createAdapter();

  await check('contract shape', () => {
    expect(adapter.specificationVersion === 'v1', `specificationVersion must be 'v1', got ${String(adapter.specificationVersion)}`);
    expect(typeof adapter.adapterId === 'string' && adapter.adapterId.length > 0, 'adapterId must be a non-empty string');
    const caps = adapter.capabilities;
    expect(caps && ['flag', 'env-file', 'message', 'none'].includes(caps.systemPrompt), 'capabilities.systemPrompt must be flag | env-file | message | none');
    expect(typeof caps.resume === 'boolean' && typeof caps.streamingText === 'boolean', 'capabilities.resume and streamingText must be booleans');
    for (const method of ['getProcessConfig', 'prepareMessage', 'parseResponse', 'getCompletionStrategy', 'parseLine'] as const) {
      expect(typeof adapter[method] === 'function', `${method} must be a function`);
    }
  });

  await check('completion strategy is valid', () => {
    const strategy = adapter.getCompletionStrategy();
    switch (strategy.type) {
      case 'turn-end':
        break;
      case 'jsonl':
        expect(strategy.completionTypes.length > 0, 'jsonl strategy needs completionTypes');
        break;
      case 'idleTimeout':
        expect(strategy.timeoutMs > 0, 'idleTimeout needs a positive timeoutMs');
        break;
      case 'custom':
        expect(typeof strategy.detector === 'function', 'custom strategy needs a detector');
        break;
      case 'exit':
        break;
      default:
        throw new Error(`unknown strategy ${JSON.stringify(strategy)}`);
    }
  });

  await check('member config layering: additionalArgs, env, workDir', async () => {
    const member: MemberAgentConfig = {
      additionalArgs: ['--troupe-conformance-arg', 'value-1'],
      env: { TROUPE_CONFORMANCE_ENV: 'env-value-1' },
      workDir,
    };
    const config = await options.createAdapter().getProcessConfig(member, workDir);
    assertProcessConfig(config);
    const args = config.args ?? [];
    const at = args.indexOf('--troupe-conformance-arg');
    expect(at >= 0 && args[at + 1] === 'value-1', `member additionalArgs must appear in args, got ${JSON.stringify(args)}`);
    expect(config.env?.TROUPE_CONFORMANCE_ENV === 'env-value-1', 'member env must be passed to the process');
    expect(config.cwd === workDir, `cwd must be the workDir (${workDir}), got ${String(config.cwd)}`);
    await config.cleanup?.();
  });

  await check('system prompt delivered exactly once, per member', async () => {
    const prompts = ['You are Max, a tech lead. TROUPE-PROMPT-A', 'You are Sarah, an analyst. TROUPE-PROMPT-B'];
    const seen: string[] = [];
    for (const systemInstruction of prompts) {
      const fresh = options.createAdapter();
      const member: MemberAgentConfig = { systemInstruction, workDir };
      const config = await fresh.getProcessConfig(member, workDir);
      const message = fresh.prepareMessage('Do task X', member);
      expect(message.includes('Do task X'), 'prepareMessage must keep the message');
      const places = await promptPlaces(config, message, systemInstruction);
      const caps = fresh.capabilities.systemPrompt;
      if (caps === 'none') {
        expect(places.length === 0, `capabilities.systemPrompt is 'none' but the prompt was sent (${places.join(', ')})`);
      } else {
        expect(places.length === 1, `system prompt must be delivered exactly once, found in: ${places.join(', ') || 'nowhere'}`);
        const expected = caps === 'flag' ? 'args' : caps === 'env-file' ? 'env-file' : 'message';
        expect(places[0] === expected, `capabilities.systemPrompt is '${caps}' but the prompt went to ${String(places[0])}`);
      }
      seen.push(JSON.stringify([config.args, message]));
      await config.cleanup?.();
    }
    if (adapter.capabilities.systemPrompt !== 'none') {
      expect(seen[0] !== seen[1] || adapter.capabilities.systemPrompt === 'env-file', 'two members must get different prompts');
    }
  });

  await check('parseLine survives garbage and yields only valid parts', () => {
    const parser = options.createAdapter();
    for (const line of options.garbageLines ?? DEFAULT_GARBAGE) {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        json = undefined;
      }
      const parts = parser.parseLine(line, json);
      expect(Array.isArray(parts), `parseLine(${JSON.stringify(line)}) must return an array`);
      for (const part of parts) {
        const valid = agentStreamPartSchema.safeParse(part);
        expect(valid.success, `parseLine(${JSON.stringify(line)}) returned an invalid part ${JSON.stringify(part)}`);
      }
    }
  });

  for (const replay of options.replays ?? []) {
    await check(`replay "${replay.name}"`, async () => {
      const result = await replayThroughAdapter(options.createAdapter(), replay, workDir);
      const end = result.parts.filter((p) => p.type === 'turn-end').at(-1);
      expect(result.status === 'completed', `turn must complete by its completion event, got ${result.status}: ${result.error ?? ''}`);
      expect(end !== undefined, 'a turn-end part must be produced');
      if (end?.type === 'turn-end') {
        expect(end.isError === (replay.expectError ?? false), `turn-end.isError must be ${String(replay.expectError ?? false)}`);
        if (replay.expectedText !== undefined) {
          expect(end.text === replay.expectedText, `turn-end text ${JSON.stringify(end.text)} != ${JSON.stringify(replay.expectedText)}`);
        }
      }
      if (!replay.expectError) {
        if (replay.expectedText !== undefined) {
          expect(result.text === replay.expectedText, `the turn's text is ${JSON.stringify(result.text)}, expected ${JSON.stringify(replay.expectedText)}`);
        }
        // Parsed once: the answer built from the streamed parts is what parseResponse reads from the whole output.
        const whole = options.createAdapter().parseResponse(result.result.outcome.output);
        expect(whole === result.text, `parseResponse gave ${JSON.stringify(whole)} for the whole output, the turn's parts ${JSON.stringify(result.text)} (parse each line once, the same way)`);
      }
      for (const part of result.parts) {
        expect(agentStreamPartSchema.safeParse(part).success, `invalid part ${JSON.stringify(part)}`);
      }
    });
  }

  const [first, second] = options.replays ?? [];
  if (first !== undefined) {
    await check('turns keep their own state: two interleaved replays parse as they do alone', async () => {
      const recordings = await Promise.all([first, second ?? first].map((replay) => recordedLines(replay.stdoutFile)));
      const alone = recordings.map((lines, index) => parseTurn(options.createAdapter(), lines, index + 1));
      const shared = options.createAdapter();
      const turns = recordings.map((lines, index) => startTurnOf(shared, index + 1));
      const interleaved: unknown[][] = [[], []];
      for (let at = 0; at < Math.max(...recordings.map((lines) => lines.length)); at++) {
        recordings.forEach((lines, index) => {
          const line = lines[at];
          if (line !== undefined) interleaved[index]?.push(...(turns[index]?.(line) ?? []));
        });
      }
      for (const index of [0, 1]) {
        expect(
          JSON.stringify(interleaved[index]) === JSON.stringify(alone[index]),
          `turn ${index + 1} parsed differently while another turn of the same adapter ran (keep per-turn state in startTurn, not in the adapter): ` +
            `${JSON.stringify(interleaved[index])} != ${JSON.stringify(alone[index])}`,
        );
      }
    });
  }

  await check('abort mid-turn kills the process group', async () => {
    const fresh = options.createAdapter();
    const adapters = new AdapterRegistry();
    adapters.register({ type: fresh.adapterId, create: () => withFakeAgentCli(fresh, { hang: true, noWaitStdin: true }) });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('conformance', fresh.adapterId, { workDir });
      const controller = new AbortController();
      const turn = manager.send('conformance', 'hello', { signal: controller.signal, timeoutMs: 20_000 });
      const run = await turn.run;
      setTimeout(() => controller.abort(new Error('test abort')), 50);
      const result = await turn.result;
      expect(result.outcome.status === 'canceled', `aborted turn must be canceled, got ${result.outcome.status}`);
      expect(run.pid === undefined || !isGroupAlive(run.pid), 'process group still alive after abort');
    } finally {
      await manager.cleanup();
    }
  });

  const failures = checks.filter((c) => !c.passed);
  return { adapterId: adapter.adapterId, checks, failures };
}

/** Runs the suite and throws one error listing every failed check. */
export async function assertAdapterConformance(options: AdapterConformanceOptions): Promise<ConformanceReport> {
  const report = await runAdapterConformance(options);
  if (report.failures.length > 0) {
    const lines = report.failures.map((f) => `  ✗ ${f.name}: ${f.message}`);
    throw new Error(`Adapter "${report.adapterId}" failed ${report.failures.length} conformance check(s):\n${lines.join('\n')}`);
  }
  return report;
}

/**
 * Runs one turn of `adapter` with its command replaced by the fake agent CLI
 * replaying `replay.stdoutFile`: the adapter's completion strategy, parser
 * all run for real (`parseResponse` only for a turn without a `turn-end` part).
 */
export async function replayThroughAdapter(adapter: AgentAdapter, replay: ConformanceReplay, workDir = process.cwd()) {
  const adapters = new AdapterRegistry();
  adapters.register({
    type: adapter.adapterId,
    create: () => withFakeAgentCli(adapter, { replay: replay.stdoutFile, exitCode: replay.exitCode ?? 0 }),
  });
  const manager = new AgentManager({ adapters });
  try {
    await manager.ensureAgentStarted('replay', adapter.adapterId, { workDir });
    const result = await manager.send('replay', 'replayed prompt', { timeoutMs: 20_000 }).result;
    return {
      status: result.outcome.status,
      error: result.outcome.status === 'completed' ? undefined : result.outcome.error.message,
      parts: result.parts,
      text: result.text,
      result,
    };
  } finally {
    await manager.cleanup();
  }
}

async function recordedLines(file: string): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '');
}

/** A turn of `adapter` as a runner starts it: `startTurn`, then each line with its context. */
function startTurnOf(adapter: AgentAdapter, turnNumber: number): (line: string) => unknown[] {
  const start = { roleId: `conformance-${turnNumber}`, turnNumber, member: {}, message: 'replayed prompt' };
  const state = adapter.startTurn?.(start);
  let lineIndex = 0;
  return (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    return adapter.parseLine(line, json, { ...start, state, lineIndex: lineIndex++ });
  };
}

function parseTurn(adapter: AgentAdapter, lines: readonly string[], turnNumber: number): unknown[] {
  const parse = startTurnOf(adapter, turnNumber);
  return lines.flatMap((line) => parse(line));
}

async function promptPlaces(config: ProcessConfig, message: string, prompt: string): Promise<string[]> {
  const places: string[] = [];
  if ((config.args ?? []).some((arg) => arg.includes(prompt))) places.push('args');
  if (message.includes(prompt)) places.push('message');
  const { readFile } = await import('node:fs/promises');
  for (const value of Object.values(config.env ?? {})) {
    if (value === undefined) continue;
    if (value.includes(prompt)) places.push('env');
    else if (value.startsWith('/')) {
      const text = await readFile(value, 'utf8').catch(() => undefined);
      if (text?.includes(prompt)) places.push('env-file');
    }
  }
  return places;
}

function assertProcessConfig(config: ProcessConfig): void {
  expect(typeof config.command === 'string' && config.command.length > 0, 'getProcessConfig must return a command');
  expect(config.args === undefined || (Array.isArray(config.args) && config.args.every((a) => typeof a === 'string')), 'args must be strings');
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
