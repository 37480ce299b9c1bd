import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@troupe/core';

const FEATURE = 'multi_agent_v2';

/** The feature's value set by `-c features.multi_agent_v2=…` / `--config …` (the last one wins), if any. */
function configOverride(args: readonly string[]): boolean | undefined {
  let value: boolean | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const setting = arg === '-c' || arg === '--config' ? args[index + 1] : arg.startsWith('--config=') ? arg.slice('--config='.length) : undefined;
    const match = setting?.match(/^features\.multi_agent_v2\s*=\s*(true|false)$/);
    if (match) value = match[1] === 'true';
  }
  return value;
}

/** The feature's value from `--enable` / `--disable` (the last one wins), if any; these beat `-c`. */
function flagOverride(args: readonly string[]): boolean | undefined {
  let value: boolean | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, args[index + 1]];
    if ((flag === '--enable' || flag === '--disable') && inline === FEATURE) value = flag === '--enable';
  }
  return value;
}

/** `multi_agent_v2` in a `config.toml`: `[features]` then `multi_agent_v2 = true`, or `features.multi_agent_v2 = true` at the top. */
function configFileValue(file: string): boolean | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // no config file: the default (off)
  }
  let table = '';
  let value: boolean | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = line.match(/^\[\s*([^\]]+?)\s*\]$/);
    if (header) {
      table = header[1]!;
      continue;
    }
    const entry = line.match(/^([A-Za-z0-9_.]+)\s*=\s*(true|false)$/);
    if (!entry) continue;
    const key = table === '' ? entry[1] : `${table}.${entry[1]}`;
    if (key === `features.${FEATURE}`) value = entry[2] === 'true';
  }
  return value;
}

/**
 * Refuses a Codex turn with permissions whose sub-agents would start undecided: with the opt-in feature
 * `multi_agent_v2` on (`--enable multi_agent_v2`, `-c features.multi_agent_v2=true`, or `[features]` in the
 * `config.toml` of `CODEX_HOME`), Codex 0.169.0 runs `spawn_agent` without an approval request, so the permission
 * callback could never see a `subagent` call. Failing at start, naming where it was turned on, is the closed failure.
 *
 * @throws ConfigError naming the argument or the file that turns the feature on.
 */
export function assertNoUndecidedSubagents(args: readonly string[], codexHome: string | undefined): void {
  const flag = flagOverride(args);
  const override = flag ?? configOverride(args);
  const file = join(codexHome ?? join(homedir(), '.codex'), 'config.toml');
  const enabled = override ?? configFileValue(file);
  if (enabled !== true) return;
  const where = flag !== undefined ? '`--enable multi_agent_v2` in the arguments' : override !== undefined ? '`-c features.multi_agent_v2=true` in the arguments' : `\`features.multi_agent_v2 = true\` in ${file}`;
  throw new ConfigError('Codex adapter settings', [
    {
      path: ['permissions'],
      message:
        `permissions cannot decide Codex sub-agents with the feature multi_agent_v2 on (${where}): Codex starts a ` +
        '`spawn_agent` sub-agent without asking for approval. Turn the feature off (remove it, or add `--disable multi_agent_v2`), or drop permissions',
    },
  ]);
}
