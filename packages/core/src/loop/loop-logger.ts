/**
 * Where the loop writes its log lines. `console` fits as is; pino and winston
 * loggers fit through a one-line adapter. The default is silent.
 */
export interface LoopLogger {
  /** State changes. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Recoveries (`healthy again`). */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Stuck phases, back-off. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Phase errors (with `loopId`, `iterationId`, `phase`, `handling`, `error` fields) and health alerts. */
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that drops everything: the default, so tests and libraries stay quiet. */
export const silentLoopLogger: LoopLogger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
