import { z } from 'zod';
import { ConfigError } from '../errors/config-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { processSingleton } from '../util/process-singleton';
import { coreEventSchemas, type AnyTroupeEvent } from './event-map';
import { eventVersion, setEventVersion } from './event-versions';

interface EventSchemaEntry {
  schema: z.ZodType;
  version: number;
}

const EVENT_TYPE = /^[a-z][a-z0-9-]*(:[a-z][a-z0-9-]*)+$/;
/**
 * Payload schemas by event type: one map per process, shared by every copy of core (ESM and CJS builds).
 * Their versions sit apart, in event-versions.ts, so an EventBus stamps versions without loading any schema.
 */
const registry = processSingleton(
  'core.event-schemas.v2',
  () => new Map<string, EventSchemaEntry>(Object.entries(coreEventSchemas).map(([type, schema]) => [type, { schema, version: eventVersion(type) }])),
);

/**
 * Registers the payload schema of a plugin's event type so it can be parsed
 * and validated like core's events. Returns a function that unregisters it.
 *
 * @throws InvalidArgumentError when `type` is not `namespace:name`.
 * @throws InvalidStateError when the type is already registered.
 */
export function registerEventSchema(type: string, schema: z.ZodType, version = 1): () => void {
  if (!EVENT_TYPE.test(type)) {
    throw new InvalidArgumentError('type', `event types are "namespace:name" in lower kebab-case, got "${type}"`);
  }
  if (registry.has(type)) {
    throw new InvalidStateError(`Event type "${type}" already has a schema registered`, { code: 'INVALID_STATE' });
  }
  const entry = { schema, version };
  registry.set(type, entry);
  setEventVersion(type, version);
  return () => {
    if (registry.get(type) !== entry) return;
    registry.delete(type);
    setEventVersion(type, undefined);
  };
}

const envelopeSchema = z.object({
  type: z.string(),
  version: z.number().int().positive(),
  timestamp: z.number(),
  source: z.string(),
  payload: z.unknown(),
});

/**
 * Validates an event envelope that came from outside the process (a log line,
 * SSE, a socket): envelope shape and the payload against its type's schema.
 * Accepts a JSON string or an already-parsed value.
 *
 * @throws ConfigError naming each invalid field.
 */
export function parseEvent(input: unknown): AnyTroupeEvent {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new ConfigError('event', [{ path: [], message: `not valid JSON (${(error as Error).message})` }], { cause: error });
    }
  }
  const envelope = envelopeSchema.safeParse(value);
  if (!envelope.success) throw ConfigError.fromZod('event envelope', envelope.error);
  const entry = registry.get(envelope.data.type);
  if (!entry) {
    throw new ConfigError('event', [{ path: ['type'], message: `unknown event type "${envelope.data.type}"` }]);
  }
  const payload = entry.schema.safeParse(envelope.data.payload);
  if (!payload.success) throw ConfigError.fromZod(`event "${envelope.data.type}"`, payload.error, ['payload']);
  return { ...envelope.data, payload: payload.data } as AnyTroupeEvent;
}

/** Serializes an event to one JSON line (for logs, SSE or another process). */
export function serializeEvent(event: AnyTroupeEvent): string {
  return JSON.stringify(event);
}
