// `@troupe/core/util`: secret redaction, error serialization, process-wide singletons and the local HTTP guard.
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
export { serializeError } from './serialize-error';
export { nextProcessCount, processSingleton } from './process-singleton';
export { checkLocalHttpRequest, LOOPBACK_HOST_NAMES, normalizeAllowedHosts, type LocalHttpGuardOptions, type LocalHttpRequest } from './local-http-guard';
