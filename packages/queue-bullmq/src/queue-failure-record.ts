import { serializeError, type SecretRedactor } from '@troupe/core/util';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { queueFailureOf } from './queue-error';
import { CONTROL_TTL_SECONDS } from './queue-keys';

const failureRecordSchema = z.object({
  message: z.string(),
  code: z.string().optional(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});

/**
 * Why a job's last attempt failed, as its worker recorded it: BullMQ keeps
 * only the error's message, and the origin needs the code and parameters to
 * word the failure in its user's language.
 */
export type QueueFailureRecord = z.infer<typeof failureRecordSchema>;

/**
 * Worker side: records an attempt's failure under `key` (replacing an
 * earlier attempt's), redacted like the job's events. A record lost to a
 * Redis error only costs the origin its translation, so it never fails the job.
 */
export async function writeFailureRecord(redis: Redis, key: string, error: unknown, redactor: SecretRedactor, secrets: readonly string[]): Promise<void> {
  const record: QueueFailureRecord = { message: serializeError(error, secrets).message, ...queueFailureOf(error) };
  await redis.set(key, redactor.redact(JSON.stringify(record)), 'EX', CONTROL_TTL_SECONDS).catch(() => {});
}

/** Origin side: the recorded failure under `key`, or undefined when there is none (or it cannot be read). */
export async function readFailureRecord(redis: Redis, key: string): Promise<QueueFailureRecord | undefined> {
  try {
    const text = await redis.get(key);
    if (text === null) return undefined;
    const parsed = failureRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
