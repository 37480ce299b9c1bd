import { redactUrl } from '@troupe/queue-bullmq';
import { CliUsageError } from '../cli-errors';
import type { CliMessages } from '../i18n/cli-messages';

/** `--redis URL` (or `--queue URL`): required, a redis:// or rediss:// URL; the usage errors in the language of `messages`, the password masked. */
export function redisOption(value: unknown, name: string, command: string, messages: CliMessages): string {
  if (typeof value !== 'string' || value === '') throw new CliUsageError(messages.queue.redisRequired(name), { command });
  if (!/^rediss?:\/\//.test(value)) throw new CliUsageError(messages.queue.redisUrl(name, redactUrl(value)), { command });
  return value;
}

/** `--queues A,B`: the names, trimmed; `fallback` when the option is absent; a usage error when it names none. */
export function queuesOption(value: unknown, fallback: readonly string[], command: string, messages: CliMessages): string[] {
  if (typeof value !== 'string') return [...fallback];
  const queues = value.split(',').map((name) => name.trim()).filter(Boolean);
  if (queues.length === 0) throw new CliUsageError(messages.queue.queuesEmpty, { command });
  return queues;
}
