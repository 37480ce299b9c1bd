import { describe, expect, it } from 'vitest';
import { AgentLoop, parseLoopConfig } from '@troupe/core/agent-loop';
import { ConfigError } from '@troupe/core';

function issuesOf(value: unknown): string[] {
  try {
    parseLoopConfig(value, 'troupe.config.toml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('loop configuration', () => {
  it('accepts the documented keys and ignores the rest of the file', () => {
    const config = parseLoopConfig({
      agent: {
        loop_interval: 'adaptive',
        loop_stuck_threshold: 12,
        loop_max_consecutive_failures: 3,
        loop_health_action: 'backoff',
        loop_adaptive: { min_interval: 0.2, max_interval: 3, few_perceptions: 1, many_perceptions: 20 },
        model: 'other settings',
      },
      team: { members: [] },
    });
    expect(config).toEqual({
      agent: {
        loop_interval: 'adaptive',
        loop_stuck_threshold: 12,
        loop_max_consecutive_failures: 3,
        loop_health_action: 'backoff',
        loop_adaptive: { min_interval: 0.2, max_interval: 3, few_perceptions: 1, many_perceptions: 20 },
      },
    });
    expect(parseLoopConfig({})).toEqual({});
    expect(parseLoopConfig({ agent: { loop_interval: 0 } })).toEqual({ agent: { loop_interval: 0 } });
  });

  it('names every invalid value by its path', () => {
    expect(issuesOf({ agent: { loop_interval: 'fast' } })).toEqual(['agent.loop_interval: expected a number of seconds or "adaptive"']);
    expect(issuesOf({ agent: { loop_interval: -1 } })).toEqual(['agent.loop_interval: expected seconds between 0 and 86400, or "adaptive"']);
    expect(issuesOf({ agent: { loop_health_action: 'panic', loop_max_consecutive_failures: 0, loop_stuck_threshold: 0 } })).toEqual([
      'agent.loop_stuck_threshold: loop_stuck_threshold must be > 0',
      'agent.loop_max_consecutive_failures: loop_max_consecutive_failures must be >= 1',
      'agent.loop_health_action: expected "recover", "backoff" or "stop"',
    ]);
    expect(issuesOf({ agent: { loop_adaptive: { min_interval: 9, max_interval: 1 } } })).toEqual([
      'agent.loop_adaptive.min_interval: min_interval must not exceed max_interval',
    ]);
    expect(issuesOf({ agent: { loop_adaptive: { min_intervall: 1 } } })[0]).toMatch(/^agent\.loop_adaptive: Unrecognized key: "min_intervall"/);
    expect(issuesOf({ agent: 'yes' })).toEqual(['agent: expected a table']);
  });

  it('the ConfigError message names the file and the path', () => {
    expect(() => parseLoopConfig({ agent: { loop_interval: true } }, '/srv/troupe.config.json')).toThrow(
      'Invalid configuration in /srv/troupe.config.json:\n  - agent.loop_interval: expected a number of seconds or "adaptive"',
    );
  });

  it('AgentLoop validates options.config and applies its stuck threshold and health settings', () => {
    expect(() => new AgentLoop({ config: { agent: { loop_interval: 'often' } } })).toThrow(
      'Invalid configuration in AgentLoop options.config:\n  - agent.loop_interval',
    );
    expect(() => new AgentLoop({ health: { action: 'panic' as 'stop' } })).toThrow('Invalid argument "health.action"');
    expect(() => new AgentLoop({ stuckThresholdMs: 0 })).toThrow('Invalid argument "stuckThresholdMs"');
    expect(() => new AgentLoop({ id: 'bad id' })).toThrow('Invalid argument "id"');
  });
});
