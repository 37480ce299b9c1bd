import type { AgentCapabilities } from './registry-schema';

/** Flags whose value is role text, removed from `args` by the 1.1 → 1.2 migration. */
const SYSTEM_PROMPT_FLAGS = ['--append-system-prompt', '--system-prompt'];

/** Role text the migration took out of a 1.1 `args` list. */
export interface RemovedSystemPrompt {
  agent: string;
  flag: string;
  text: string;
}

/** Result of converting one 1.1 agent entry. */
export interface ConvertedAgent {
  definition: Record<string, unknown>;
  removed: RemovedSystemPrompt[];
  warnings: string[];
}

/**
 * Converts one registry 1.1 agent entry to 1.2: `args` → `baseArgs` without
 * role text, `capabilities` added from what the entry's adapter knows of its
 * CLI (`capabilitiesOf(name)`, the registered plugin's
 * `registryCapabilities`), or else from the legacy `completion` field.
 * Unknown fields are kept; removed role text is kept under
 * `legacySystemPrompt` so nothing is lost.
 */
export function convertLegacyAgent(
  key: string,
  legacy: Record<string, unknown>,
  capabilitiesOf: (type: string) => AgentCapabilities | undefined = () => undefined,
): ConvertedAgent {
  const { args: rawArgs, completion, ...rest } = legacy;
  const args = Array.isArray(rawArgs) ? rawArgs.map(String) : [];
  const name = typeof legacy.name === 'string' ? legacy.name : key;
  const removed: RemovedSystemPrompt[] = [];
  const warnings: string[] = [];
  const baseArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (SYSTEM_PROMPT_FLAGS.includes(flag)) {
      const text = eq > 0 ? arg.slice(eq + 1) : (args[++i] ?? '');
      removed.push({ agent: key, flag, text });
      continue;
    }
    baseArgs.push(arg);
  }
  const known = capabilitiesOf(name) ?? capabilitiesOf(key);
  let capabilities: AgentCapabilities;
  if (known) {
    capabilities = structuredClone(known);
  } else {
    const flag = removed[0]?.flag;
    const detection = completion === 'exit' ? 'exit' : 'idleTimeout';
    if (completion === 'jsonl') {
      warnings.push(
        `agents.${key}: legacy "completion: jsonl" does not say which event types end a turn; ` +
          'using idleTimeout 2000 ms — register its adapter before migrating (it knows the event types), or set capabilities.completionTypes and completionDetection "jsonl".',
      );
    }
    capabilities = {
      supportsSystemPrompt: flag !== undefined,
      ...(flag ? { systemPromptFlag: flag } : {}),
      completionDetection: detection,
      ...(detection === 'idleTimeout' ? { idleTimeoutMs: 2000 } : {}),
    };
  }
  if (removed.length > 0) {
    warnings.push(
      `agents.${key}: removed role text from args (${removed.map((r) => r.flag).join(', ')}); ` +
        'move it to each team member\'s systemInstruction. It is kept under "legacySystemPrompt".',
    );
  }
  const definition: Record<string, unknown> = {
    ...rest,
    name,
    baseArgs,
    capabilities,
    ...(removed.length > 0 ? { legacySystemPrompt: removed.map((r) => r.text).join('\n\n') } : {}),
  };
  return { definition, removed, warnings };
}
