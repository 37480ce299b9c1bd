import { MemoryStore } from '@troupe/core';
import { describeStoreConformance } from './testing/store-conformance';

// The suite first proves itself against core's reference implementation.
// MemoryStore returns one item for `limit: 0` (core issue: the limit check runs after the push).
describeStoreConformance('MemoryStore', { create: ({ now }) => new MemoryStore(now ? { now } : {}) });
