import type { SerializedError } from '../events/event-map';
import { redactSecrets } from './redact-secrets';

/** Turns anything thrown into plain, JSON-safe error data with secrets redacted. */
export function serializeError(error: unknown, secrets: Iterable<string> = []): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      message: redactSecrets(error.message, secrets),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { name: 'Error', message: redactSecrets(String(error), secrets) };
}
