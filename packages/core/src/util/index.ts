// `@troupe/core/util`: secret redaction, error serialization and process-wide singletons.
export {
  createSecretRedactor,
  hostSecretRedactor,
  isSecretEnvName,
  REDACTED,
  redactSecrets,
  secretValuesFromEnv,
  type SecretRedactor,
  type SecretRedactorOptions,
} from './redact-secrets';
export type { SecretStreamRedactor } from './redact-secret-stream';
export { serializeError } from './serialize-error';
export { nextProcessCount, processSingleton } from './process-singleton';
