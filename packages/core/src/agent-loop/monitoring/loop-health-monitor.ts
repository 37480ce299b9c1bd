import type { SerializedError, TroupeEventPayloads } from '../../events/event-map';
import { serializeError } from '../../util/serialize-error';
import { loopBackoffMs, type ResolvedLoopHealth } from './loop-health';
import type { LoopLogger } from '../../loop/loop-logger';
import type { LoopReporter } from './loop-reporter';
import type { LoopStatsRecorder } from './loop-stats';

/** What {@link LoopHealthMonitor} needs from its loop. */
export interface LoopHealthDependencies {
  loopId: string;
  policy: ResolvedLoopHealth;
  recorder: LoopStatsRecorder;
  reporter: LoopReporter;
  logger: LoopLogger;
  secrets: readonly string[];
  /** The error of the last failed iteration. */
  lastError(): SerializedError | undefined;
  /** Signal of the running session (for the `recover` hook). */
  signal(): AbortSignal;
  /** Stops the loop (the `stop` action). */
  stop(): Promise<void>;
  /** Default recovery: tear every stage down and set it up again. */
  reinitialiseStages(): Promise<void>;
}

/**
 * Health checks after each iteration: after `maxConsecutiveFailures` failed
 * iterations in a row, publishes `loop:health` (`unhealthy`) and applies the
 * policy's action (recover, back off or stop); the first successful
 * iteration after that publishes `healthy`.
 */
export class LoopHealthMonitor {
  /** True from the alert until an iteration succeeds. */
  unhealthy = false;
  /** Extra wait before the next iteration (`backoff` action). */
  backoffMs = 0;

  constructor(private readonly deps: LoopHealthDependencies) {}

  /** After a failed iteration (the recorder has counted it). */
  async afterFailure(): Promise<void> {
    const { policy, recorder, logger, loopId } = this.deps;
    const failures = recorder.consecutiveFailures;
    if (policy.action === 'backoff' && this.unhealthy) {
      this.backoffMs = loopBackoffMs(policy, failures - policy.maxConsecutiveFailures);
      logger.warn(`Loop "${loopId}" still failing; backing off ${this.backoffMs} ms`, { loopId, consecutiveFailures: failures });
      return;
    }
    if (failures < policy.maxConsecutiveFailures) return;
    this.unhealthy = true;
    recorder.healthAlerts++;
    if (policy.action === 'backoff') this.backoffMs = loopBackoffMs(policy, 0);
    logger.error(`Loop "${loopId}" is unhealthy: ${failures} failed iterations in a row; action: ${policy.action}`, {
      loopId,
      consecutiveFailures: failures,
      lastError: this.deps.lastError(),
    });
    this.emit('unhealthy', policy.action, this.deps.lastError());
    if (policy.action === 'stop') {
      this.deps.stop().catch((error: unknown) => logger.error(`Loop "${loopId}" could not stop: ${serializeError(error, this.deps.secrets).message}`));
      return;
    }
    if (policy.action === 'recover') {
      try {
        if (policy.recover) {
          await policy.recover({ loopId, consecutiveFailures: failures, lastError: this.deps.lastError(), signal: this.deps.signal(), logger });
        } else {
          await this.deps.reinitialiseStages();
        }
        recorder.consecutiveFailures = 0;
        this.emit('recovered', 'recover');
      } catch (error) {
        recorder.consecutiveFailures = 0;
        this.emit('recovery-failed', 'recover', this.deps.reporter.reportError('recover', error, { handling: 'continue' }));
      }
    }
  }

  /** After a successful (or idle) iteration. */
  afterSuccess(): void {
    if (!this.unhealthy) return;
    this.unhealthy = false;
    this.backoffMs = 0;
    this.deps.logger.info(`Loop "${this.deps.loopId}" is healthy again`, { loopId: this.deps.loopId });
    this.emit('healthy', 'none');
  }

  private emit(
    status: TroupeEventPayloads['loop:health']['status'],
    action: TroupeEventPayloads['loop:health']['action'],
    error?: SerializedError,
  ): void {
    const payload: TroupeEventPayloads['loop:health'] = {
      loopId: this.deps.loopId,
      status,
      consecutiveFailures: this.deps.recorder.consecutiveFailures,
      action,
      timestamp: Date.now(),
    };
    if (status === 'unhealthy' && action === 'backoff') payload.backoffMs = this.backoffMs;
    if (error !== undefined) payload.lastError = error;
    this.deps.reporter.emit('loop:health', payload);
  }
}
