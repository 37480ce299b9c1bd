import { InvalidArgumentError } from '@troupe/core';
import { Redis, type RedisOptions } from 'ioredis';

/** Where Redis is: a `redis://` / `rediss://` URL, or ioredis options (host, port, password, tls…). */
export type QueueConnection = string | RedisOptions;

/** Key prefix of everything Troupe keeps in Redis besides BullMQ's own keys. Default `troupe`. */
export const DEFAULT_QUEUE_PREFIX = 'troupe';

/**
 * Opens one ioredis connection. `maxRetriesPerRequest: null` is what BullMQ
 * requires of blocking connections (workers, queue events), and lets every
 * connection ride out a Redis restart instead of failing the command.
 */
export function openRedis(connection: QueueConnection, name: string): Redis {
  if (typeof connection === 'string') {
    if (!/^rediss?:\/\//.test(connection)) {
      throw new InvalidArgumentError('connection', `expected a redis:// or rediss:// URL, got ${JSON.stringify(redactUrl(connection))}`);
    }
    return new Redis(connection, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
  }
  if (connection === null || typeof connection !== 'object') {
    throw new InvalidArgumentError('connection', 'expected a redis:// URL or ioredis options { host, port, … }');
  }
  return new Redis({ ...connection, maxRetriesPerRequest: null, connectionName: name });
}

/** A Redis URL without its password (`redis://user:***@host`), for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Closes a connection, tolerating one that is already closed or was never connected. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
