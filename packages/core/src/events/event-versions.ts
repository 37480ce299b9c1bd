import { processSingleton } from '../util/process-singleton';

/** Payload schema versions of core events that changed since version 1 (the rest are 1). */
const CORE_EVENT_VERSIONS: Readonly<Record<string, number>> = {
  'agent:part': 2,
  'agent:turn-completed': 2,
};

/**
 * Payload schema version by event type, apart from the schemas themselves
 * (event-schema-registry.ts), so an EventBus stamps versions without loading
 * zod. One per process, shared by every copy of core (ESM and CJS builds),
 * with the generation, bumped on every registration change so a cached
 * {@link eventVersion} knows it is stale.
 */
const state = processSingleton('core.event-versions.v1', () => ({ versions: new Map<string, number>(Object.entries(CORE_EVENT_VERSIONS)), generation: 0 }));

/** Version of an event type's payload schema (1 for unknown types). */
export function eventVersion(type: string): number {
  return state.versions.get(type) ?? 1;
}

/**
 * Changes each time a schema is registered or unregistered: a cache of
 * {@link eventVersion} stays valid while this returns the same number.
 *
 * @internal
 */
export function eventSchemaGeneration(): number {
  return state.generation;
}

/**
 * Records the version of a type whose schema was registered (or, with
 * `undefined`, unregistered: back to 1).
 *
 * @internal
 */
export function setEventVersion(type: string, version: number | undefined): void {
  if (version === undefined) state.versions.delete(type);
  else state.versions.set(type, version);
  state.generation++;
}
