import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/**
 * An adapter (or model) was asked for something it cannot do, e.g. MCP
 * servers for a CLI adapter that has no way to give them to its CLI. Thrown
 * instead of silently ignoring the setting.
 */
export class CapabilityUnsupportedError extends TroupeError {
  /** The adapter (or model provider) asked. */
  readonly adapterId: string;
  /** What it cannot do, e.g. `mcpServers`. */
  readonly capability: string;

  constructor(adapterId: string, capability: string, message: string, options: TroupeErrorOptions = {}) {
    super('CAPABILITY_UNSUPPORTED', message, options);
    this.name = 'CapabilityUnsupportedError';
    this.adapterId = adapterId;
    this.capability = capability;
  }
}
