import type { SerializedError } from '../events/event-map';
import { redactSecrets, secretValuesFromEnv } from './redact-secrets';

/**
 * Turns anything thrown into plain, JSON-safe error data with secrets
 * redacted: the given ones, the values of this process's secret-named
 * environment variables, and well-known key shapes.
 */
export function serializeError(error: unknown, extraSecrets: Iterable<string> = []): SerializedError {
  const secrets = [...secretValuesFromEnv(process.env), ...extraSecrets];
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
