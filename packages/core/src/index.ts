// `@troupe/core`: the contracts every Troupe package and plugin shares — errors, events and their schemas,
// messages, the Store, AgentAdapter v1, CompletionStrategy, ChatModel v1, tools, RunnableAgent, usage
// records and the loop stage contract. The runtimes are behind their own doors:
//   @troupe/core/cli-turn       AgentManager, ProcessManager, process containment, the registry config format
//   @troupe/core/agent-loop     the Sense-Plan-Act-Reflect loop runner and its monitoring
//   @troupe/core/model-runtime  runToolLoop, generateObject, model retries
//   @troupe/core/agent-runtime  defineAgent, AgentRegistry and the Executor
//   @troupe/core/util           redaction, line framing, config files, the abort race
export { VERSION } from './version';

// Errors
export * from './errors/index';

// Events and their contracts
export * from './events/index';
export { coreEventSchemas, serializedErrorSchema } from './events/event-map';
export { parseEvent, registerEventSchema, serializeEvent } from './events/event-schema-registry';
export { defineEventGroup } from './events/event-group';

// Messages
export * from './messages/index';
export { messageInputSchema, messageRoleSchema, messageSchema } from './messages/message-schema';

// Store
export * from './store/index';

// Agent adapters v1: the plugin contract for a CLI agent
export * from './adapter/index';

// Chat models v1, tools, runnable agents, usage records, the loop stage contract
export * from './model/index';
export * from './tools/index';
export * from './agents/index';
export * from './usage/index';
export * from './loop/index';

// Tool permissions: canUseTool, the policy, hooks and the decision every adapter makes the same way
export * from './permissions/index';
