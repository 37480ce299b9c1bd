import { TroupeError } from './troupe-error';

/** No adapter is registered under the requested type. */
export class AdapterNotFoundError extends TroupeError {
  /** The type that was asked for. */
  readonly adapterType: string;
  /** The types that are registered, sorted. */
  readonly registered: readonly string[];

  constructor(adapterType: string, registered: readonly string[]) {
    const list = registered.length > 0 ? registered.join(', ') : '(none registered)';
    super(
      'ADAPTER_NOT_FOUND',
      `No agent adapter registered for "${adapterType}". Registered adapters: ${list}. ` +
        `Register one with registerAdapter(), e.g. from @troupe/adapter-${adapterType}.`,
    );
    this.name = 'AdapterNotFoundError';
    this.adapterType = adapterType;
    this.registered = registered;
  }
}
