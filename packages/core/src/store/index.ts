// `@troupe/core/store`: the Store contract, the MemoryStore and the input checks every store shares.
export type { Namespace, Store, StoreCallOptions, StoreItem, StoreListOptions } from './store';
export { MemoryStore } from './memory-store';
export { checkStoreLimit, checkStoreListOptions, checkStoreNamespace, NAMESPACE_SEPARATOR, storeValueToJson } from './store-input';
