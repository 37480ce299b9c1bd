/**
 * Thrown for bad input to the fake server's API (unknown scenario or
 * protocol, malformed scripted response). Standalone on purpose: the test
 * server must not depend on `@troupe/core`, whose own tests may use it.
 */
export class FakeLlmServerError extends Error {
  /** Stable code for assertions: `invalid-argument` or `server-closed`. */
  readonly code: 'invalid-argument' | 'server-closed';

  constructor(code: FakeLlmServerError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FakeLlmServerError';
    this.code = code;
  }
}
