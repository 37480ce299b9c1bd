import { InvalidArgumentError, type Namespace } from '@troupe/core';

/** @internal Checks a namespace prefix: a string or a non-empty array of non-empty strings without NUL. */
export function checkNamespace(namespace: unknown, what = 'namespace'): Namespace {
  const segments = typeof namespace === 'string' ? [namespace] : namespace;
  if (!Array.isArray(segments) || segments.length === 0) {
    throw new InvalidArgumentError(what, `expected a non-empty array of strings (e.g. ["plans", "my-project"]), got ${JSON.stringify(namespace)}`);
  }
  for (const segment of segments) {
    if (typeof segment !== 'string' || segment === '' || segment.includes('\u0000')) {
      throw new InvalidArgumentError(what, `each segment must be a non-empty string without NUL, got ${JSON.stringify(segment)}`);
    }
  }
  return Object.freeze([...(segments as string[])]);
}

/** @internal Checks a thread id: a non-empty string without NUL. */
export function checkThreadId(threadId: unknown): asserts threadId is string {
  if (typeof threadId !== 'string' || threadId === '' || threadId.includes('\u0000')) {
    throw new InvalidArgumentError('threadId', `expected a non-empty string without NUL (the key a run resumes by), got ${JSON.stringify(threadId)}`);
  }
}
