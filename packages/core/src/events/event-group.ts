import type { z } from 'zod';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { TroupeError } from '../errors/troupe-error';
import { processSingleton } from '../util/process-singleton';
import { registerEventSchema } from './event-schema-registry';

/**
 * The event group that registered each event type: one map per process,
 * shared by every copy of core, so a second copy of a plugin package (its
 * ESM and CJS builds, or a duplicate install) knows the schemas already
 * there are its own, while anyone else's schema under its types is a conflict.
 */
const owners = processSingleton('core.event-group-owners.v1', () => new Map<string, string>());

/**
 * Declares a plugin package's group of bus events (`acp:*`, `queue:*`…) and
 * returns the function that registers their payload schemas with core's
 * event schema registry, so `parseEvent` validates them across processes.
 *
 * Call the returned function from the package's entry points (a
 * constructor, a factory), never at import time (`sideEffects: false`). It
 * registers once per copy of the package and tolerates another copy of the
 * same package having registered the group first; a schema registered for
 * one of the group's types by anyone else is a conflict and throws. The
 * payload types still need the package's own `declare module '@troupe/core'`
 * augmentation of `TroupeEventPayloads`: TypeScript merges it per package.
 *
 * @param namespace The part before `:` that every type of the group shares.
 * @param schemas Payload schemas by event type.
 * @returns The idempotent registration function.
 * @throws InvalidArgumentError when a type of `schemas` is outside `namespace`.
 *
 * @example
 * ```ts
 * import { defineEventGroup } from '@troupe/core';
 * import { z } from 'zod';
 *
 * export const acmeEventSchemas = { 'acme:deployed': z.object({ url: z.string() }) } as const;
 * export type AcmeEventPayloads = { [K in keyof typeof acmeEventSchemas]: z.infer<(typeof acmeEventSchemas)[K]> };
 * declare module '@troupe/core' {
 *   interface TroupeEventPayloads extends AcmeEventPayloads {}
 * }
 *
 * export const registerAcmeEvents = defineEventGroup('acme', acmeEventSchemas);
 * // in createAcmeThing(): registerAcmeEvents();
 * ```
 */
export function defineEventGroup(namespace: string, schemas: Readonly<Record<string, z.ZodType>>): () => void {
  const outside = Object.keys(schemas).filter((type) => !type.startsWith(`${namespace}:`));
  if (outside.length > 0) {
    throw new InvalidArgumentError('schemas', `every event type of the "${namespace}" group starts with "${namespace}:", got ${outside.map((type) => `"${type}"`).join(', ')}`);
  }
  let registered = false;
  return () => {
    if (registered) return;
    for (const [type, schema] of Object.entries(schemas)) {
      if (owners.get(type) === namespace) continue;
      try {
        registerEventSchema(type, schema);
      } catch (error) {
        if (!TroupeError.hasCode(error, 'INVALID_STATE')) throw error;
        throw new InvalidStateError(`Event type "${type}" of the "${namespace}" event group already has a schema registered outside the group`, { cause: error });
      }
      owners.set(type, namespace);
    }
    registered = true;
  };
}
