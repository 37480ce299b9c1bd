// `@troupe/core/util`: secret redaction, error serialization, process-wide singletons, the local HTTP guard, the abort race, the config file reader, and
// line framing (zod-free, for code that must start fast: the Codex app-server driver, the `troupe` control socket).
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
export { checkLocalHttpRequest, LOOPBACK_HOST_NAMES, normalizeAllowedHosts, type LocalHttpGuardOptions, type LocalHttpRequest } from './local-http-guard';
export { LineSplitter, parseJsonLine, type LineSplitterOptions } from './line-splitter';
export { readJsonLines, type JsonLineReaderOptions } from './json-line-reader';
export { coalescedWriter, type CoalescedWriter, type CorkableStream } from './coalesced-writer';
export { LineProtocolControl, type AnswerSent } from './line-protocol-control';
export { limitedWarning } from './limited-warning';
export { raceAbort } from './race-abort';
export { readConfigFile, type ReadConfigFileOptions } from './read-config-file';
export { readRenamedOption, type RenamedOption } from './renamed-option';
export { assertKnownOptions } from './timeout-option';
export { connectDecisionSocket, listenDecisionSocket, startTurnDecisionSocket, type DecisionSocketHandler, type TurnDecisionSocket } from './decision-socket';
export {
  createJsonLineRpcClient,
  JsonLineRpcError,
  listenJsonLineRpc,
  type JsonLineRpcAnswer,
  type JsonLineRpcCheck,
  type JsonLineRpcClient,
  type JsonLineRpcClientOptions,
  type JsonLineRpcConnection,
  type JsonLineRpcFailure,
  type JsonLineRpcRefusal,
  type JsonLineRpcRequestOptions,
  type JsonLineRpcServer,
  type JsonLineRpcServerOptions,
} from './json-line-rpc';
export { isProcessAlive } from './process-alive';
