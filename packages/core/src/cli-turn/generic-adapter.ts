import { ConfigError } from '../errors/config-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { matchesCompletionType, type CompletionStrategy } from '../adapter/v1/completion-strategy';
import type { AgentDefinition } from './registry/registry-schema';
import type { AgentAdapterV1 } from '../adapter/v1/agent-adapter-v1';
import type { AgentStreamPart } from '../adapter/v1/agent-stream-part';

/**
 * An adapter driven entirely by a registry 1.2 entry, for CLIs without a
 * dedicated adapter: base args, the system prompt flag (or the prompt
 * prepended to the message), and the declared completion detection. Plain
 * stdout lines become text; JSON lines with a string `text`, `content` or
 * `result` field are read as text too. With `jsonl` detection its parser ends
 * the turn: a line whose `type` is one of the entry's `completionTypes` adds a
 * `turn-end` part with the turn's text (strategy `turn-end`); with `exit` or
 * `idleTimeout` no line ends the turn, and the runner reads the answer with
 * `parseResponse`.
 *
 * @example
 * ```ts
 * registerAdapter({ type: 'my-cli', create: (definition) => createGenericAdapter(definition!) });
 * ```
 */
export function createGenericAdapter(definition: AgentDefinition): AgentAdapterV1 {
  if (!definition) throw new InvalidArgumentError('definition', 'the generic adapter needs a registry entry');
  // Settings a dedicated adapter maps to its CLI's flags: for an unknown CLI they go in baseArgs or env.
  const unmappable = (['model', 'baseUrl', 'apiKeyEnv', 'maxRetries'] as const).filter((field) => definition[field] !== undefined);
  const issues: { path: string[]; message: string }[] = unmappable.map((field) => ({
    path: [field],
    message: `"${definition.adapter ?? definition.name}" has no dedicated adapter that knows how to pass ${field} to it; put the flag in baseArgs or the variable in env (or set "adapter" to claude, codex or gemini)`,
  }));
  if (definition.usePty === true) issues.push({ path: ['usePty'], message: 'pseudo-terminals are not supported: the CLI\'s output is read through pipes; remove usePty or set it to false' });
  // A policy nothing enforces would let every call through: refuse it (fail closed).
  if (definition.policy !== undefined) issues.push({ path: ['policy'], message: `"${definition.adapter ?? definition.name}" has no dedicated adapter that can decide its tool calls, so no policy can be enforced; use claude, codex or acp` });
  if (issues.length > 0) throw new ConfigError(`agent registry entry "${definition.name}"`, issues);
  const processEnv = definition.env || definition.home ? { ...definition.env, ...(definition.home ? { HOME: definition.home } : {}) } : undefined;
  const caps = definition.capabilities;
  const completionTypes = caps.completionDetection === 'jsonl' ? (caps.completionTypes ?? ['result']) : undefined;
  const completion: CompletionStrategy =
    completionTypes !== undefined
      ? { type: 'turn-end' }
      : caps.completionDetection === 'idleTimeout'
        ? { type: 'idleTimeout', timeoutMs: caps.idleTimeoutMs ?? 2000 }
        : { type: 'exit' };
  const flag = caps.supportsSystemPrompt ? caps.systemPromptFlag : undefined;
  return {
    specificationVersion: 'v1',
    adapterId: definition.name,
    capabilities: { systemPrompt: flag ? 'flag' : 'message', resume: false, streamingText: false },
    getProcessConfig(member, workDir) {
      const args = [...definition.baseArgs];
      if (flag && member.systemInstruction) args.push(flag, member.systemInstruction);
      if (member.additionalArgs) args.push(...member.additionalArgs);
      return {
        command: definition.command,
        args,
        ...(workDir ?? member.workDir ? { cwd: workDir ?? member.workDir } : {}),
        ...(processEnv || member.env ? { env: { ...processEnv, ...member.env } } : {}),
      };
    },
    prepareMessage(message, member) {
      return !flag && member.systemInstruction ? `${member.systemInstruction}\n\n${message}` : message;
    },
    parseResponse(rawOutput) {
      const texts: string[] = [];
      for (const line of rawOutput.split('\n')) {
        for (const part of parseGenericLine(line)) if (part.type === 'text-delta') texts.push(part.text);
      }
      return texts.join('').trim();
    },
    getCompletionStrategy: () => completion,
    // The turn's text so far, for its `turn-end` part.
    startTurn: () => ({ texts: [] as string[] }),
    parseLine(line, json, context) {
      const parts = parseGenericLine(line);
      if (completionTypes === undefined) return parts;
      const texts = (context?.state as { texts: string[] } | undefined)?.texts ?? [];
      for (const part of parts) if (part.type === 'text-delta') texts.push(part.text);
      if (!matchesCompletionType(json, completionTypes)) return parts;
      return [...parts, { type: 'turn-end', text: texts.join('').trim(), isError: false }];
    },
  };
}

function parseGenericLine(line: string): AgentStreamPart[] {
  if (line === '') return [];
  const trimmed = line.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>;
      for (const key of ['text', 'content', 'result']) {
        if (typeof json[key] === 'string') return [{ type: 'text-delta', text: json[key] as string }];
      }
      return [];
    } catch {
      // not JSON after all: plain text
    }
  }
  return [{ type: 'text-delta', text: `${line}\n` }];
}
