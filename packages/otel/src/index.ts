// @troupe/otel: OpenTelemetry spans from Troupe's event bus (GenAI semantic conventions).
export { instrumentTroupe, type InstrumentTroupeOptions, type Uninstrument } from './otel-instrument';
export { GEN_AI, genAiProviderName } from './otel-attributes';
export { OTEL_VERSION } from './otel-version';
