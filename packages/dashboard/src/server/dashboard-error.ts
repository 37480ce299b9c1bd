import { TroupeError, type TroupeErrorOptions } from '@troupe/core';

const DASHBOARD_ERROR_MARKER = Symbol.for('troupe.dashboard-error');

/**
 * The dashboard could not be served: its page could not be bundled, or its
 * server could not listen. `code` is `INVALID_STATE`.
 *
 * @example
 * ```ts
 * try { await serveDashboard({ bus }); }
 * catch (error) { if (DashboardError.isInstance(error)) console.error(error.message); }
 * ```
 */
export class DashboardError extends TroupeError {
  private readonly [DASHBOARD_ERROR_MARKER] = true;

  constructor(message: string, options: TroupeErrorOptions = {}) {
    super('INVALID_STATE', message, options);
    this.name = 'DashboardError';
  }

  /** True for a dashboard error from any copy of the package. */
  static override isInstance(error: unknown): error is DashboardError {
    return TroupeError.isInstance(error) && (error as unknown as Record<symbol, unknown>)[DASHBOARD_ERROR_MARKER] === true;
  }
}
