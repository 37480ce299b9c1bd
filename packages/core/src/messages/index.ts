// `@troupe/core/messages`: the MessageStore, without the message schemas (zod loads only to word a bad message's error).
export { MessageStore, type ListMessagesOptions, type MessageStoreOptions } from './message-store';
export type { Message, MessageInput, MessageRole } from './message-schema';
