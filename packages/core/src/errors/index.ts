export { TroupeError, type TroupeErrorCode, type TroupeErrorOptions } from './troupe-error';
export { ProcessError, type ProcessErrorDetails } from './process-error';
export { CompletionTimeoutError } from './completion-timeout-error';
export { AbortError } from './abort-error';
export { AdapterNotFoundError } from './adapter-not-found-error';
export { ConfigError, formatIssuePath, type ConfigIssue } from './config-error';
export { InvalidArgumentError, InvalidStateError } from './invalid-argument-error';
export { AgentError } from './agent-error';
export { CapabilityUnsupportedError } from './capability-unsupported-error';
