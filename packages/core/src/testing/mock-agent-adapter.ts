import type {
  AgentAdapterCapabilities,
  AgentAdapterV1,
  AgentLineContext,
  AgentStreamPart,
  AgentTurnContext,
  AgentTurnStart,
  CompletionStrategy,
  MemberAgentConfig,
  ProcessConfig,
} from '@troupe/core';
import { fakeAgentProcessConfig, type FakeAgentCliOptions } from './fake-agent-cli';

/** One recorded call to the mock adapter. */
export type MockAdapterCall =
  | { method: 'getProcessConfig'; member: MemberAgentConfig; workDir: string | undefined; context: AgentTurnContext | undefined }
  | { method: 'prepareMessage'; message: string; member: MemberAgentConfig }
  | { method: 'parseResponse'; rawOutput: string }
  | { method: 'getCompletionStrategy' }
  | { method: 'startTurn'; turn: AgentTurnStart }
  | { method: 'parseLine'; line: string; json: unknown; context: AgentLineContext | undefined };

/** Settings of {@link MockAgentAdapter}. */
export interface MockAgentAdapterOptions {
  adapterId?: string;
  /** Fake CLI behaviour for each turn (or a function of the turn number, from 0). */
  cli?: FakeAgentCliOptions | ((turn: number) => FakeAgentCliOptions);
  /** Default: JSON lines of type `result` end a turn. */
  completion?: CompletionStrategy;
  capabilities?: Partial<AgentAdapterCapabilities>;
}

/**
 * An adapter that records every call and runs the fake agent CLI. Lines of
 * the form `{"type":"text","text":…}` become `text-delta`, `{"type":"result",
 * "result":…}` a `turn-end` (`is_error`, `stop_reason` and `structured_output`, when present, its `isError`, `stopReason` and `structuredOutput`), `{"type":"session","id":…,"model"?:…}` a `session`
 * part, `{"type":"usage","inputTokens":…,"outputTokens":…,"costUsd"?:…}` a `usage` part.
 *
 * @example
 * ```ts
 * const adapter = new MockAgentAdapter({ cli: { lines: ['{"type":"result","result":"hi"}'] } });
 * adapters.register({ type: 'mock', create: () => adapter });
 * expect(adapter.calls.map((c) => c.method)).toContain('prepareMessage');
 * ```
 */
export class MockAgentAdapter implements AgentAdapterV1 {
  readonly specificationVersion = 'v1' as const;
  readonly adapterId: string;
  readonly capabilities: AgentAdapterCapabilities;
  /** Every call, in order. */
  readonly calls: MockAdapterCall[] = [];
  private turn = 0;

  constructor(private readonly options: MockAgentAdapterOptions = {}) {
    this.adapterId = options.adapterId ?? 'mock';
    this.capabilities = { systemPrompt: 'message', resume: true, streamingText: false, ...options.capabilities };
  }

  getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): ProcessConfig {
    this.calls.push({ method: 'getProcessConfig', member, workDir, context });
    const cli = typeof this.options.cli === 'function' ? this.options.cli(this.turn) : (this.options.cli ?? {});
    this.turn++;
    return fakeAgentProcessConfig(cli, {
      ...(workDir ?? member.workDir ? { cwd: workDir ?? member.workDir } : {}),
      ...(member.env ? { env: member.env } : {}),
      args: [...(member.additionalArgs ?? []), ...(context?.resumeSessionId ? ['--resume', context.resumeSessionId] : [])],
    });
  }

  prepareMessage(message: string, member: MemberAgentConfig): string {
    this.calls.push({ method: 'prepareMessage', message, member });
    return this.capabilities.systemPrompt === 'message' && member.systemInstruction
      ? `${member.systemInstruction}\n\n${message}`
      : message;
  }

  parseResponse(rawOutput: string): string {
    this.calls.push({ method: 'parseResponse', rawOutput });
    let result = '';
    for (const line of rawOutput.split('\n')) {
      for (const part of this.parts(line)) if (part.type === 'turn-end') result = part.text;
    }
    return result;
  }

  getCompletionStrategy(): CompletionStrategy {
    this.calls.push({ method: 'getCompletionStrategy' });
    return this.options.completion ?? { type: 'jsonl', completionTypes: ['result'] };
  }

  /** Records the turn start; the mock keeps no turn state (`context.state` is `undefined`). */
  startTurn(turn: AgentTurnStart): undefined {
    this.calls.push({ method: 'startTurn', turn });
    return undefined;
  }

  parseLine(line: string, json: unknown, context?: AgentLineContext): AgentStreamPart[] {
    this.calls.push({ method: 'parseLine', line, json, context });
    return this.parts(line);
  }

  private parts(line: string): AgentStreamPart[] {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return [];
    }
    if (json === null || typeof json !== 'object') return [];
    switch (json.type) {
      case 'text':
        return [{ type: 'text-delta', text: String(json.text ?? '') }];
      case 'session':
        return [{ type: 'session', sessionId: String(json.id), ...(typeof json.model === 'string' ? { model: json.model } : {}) }];
      case 'usage': {
        const usage: Record<string, number> = {};
        for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'reasoningTokens', 'costUsd']) {
          if (typeof json[key] === 'number') usage[key] = json[key];
        }
        return [{ type: 'usage', usage }];
      }
      case 'result':
        return [
          {
            type: 'turn-end',
            text: String(json.result ?? ''),
            isError: json.is_error === true,
            ...(typeof json.stop_reason === 'string' ? { stopReason: json.stop_reason } : {}),
            ...(Object.hasOwn(json, 'structured_output') ? { structuredOutput: json.structured_output } : {}),
          },
        ];
      default:
        return [];
    }
  }
}
