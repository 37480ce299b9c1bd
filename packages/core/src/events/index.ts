// `@troupe/core/events`: the EventBus and event scopes, without the event schemas (no zod loaded).
export {
  EventBus,
  type EventBusListeners,
  type EventBusOptions,
  type EventFor,
  type EventListener,
  type EventSelector,
  type EmitOptions,
  type SubscribeOptions,
  type Unsubscribe,
} from './event-bus';
export type { AnyTroupeEvent, SerializedError, TroupeEvent, TroupeEventPayloads, TroupeEventType } from './event-map';
export { eventVersion } from './event-versions';
export { fallbackEventBus, registerFallbackEventBus } from './fallback-event-bus';
export {
  currentEventScope,
  enableEventScopes,
  eventScopeChain,
  eventScopesEnabled,
  registerEventScopeWrapper,
  runInEventScope,
  withEventScope,
  type EventScope,
  type EventScopeInit,
  type EventScopeRun,
  type EventScopeWrapper,
  type TraceCarrier,
} from './event-scope';
export { checkTraceCarrier, currentTraceCarrier, parseTraceparent, registerTraceCarrierProvider, type TraceParent } from './trace-carrier';
