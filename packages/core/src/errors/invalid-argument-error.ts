import { TroupeError, type TroupeErrorCode, type TroupeErrorOptions } from './troupe-error';

/** A function was called with an argument it cannot accept; the message names it. */
export class InvalidArgumentError extends TroupeError {
  /** Name of the offending argument. */
  readonly argument: string;

  constructor(argument: string, message: string, options: TroupeErrorOptions = {}) {
    super('INVALID_ARGUMENT', `Invalid argument "${argument}": ${message}`, options);
    this.name = 'InvalidArgumentError';
    this.argument = argument;
  }
}

/** An operation is not allowed in the object's current state (e.g. unknown process id). */
export class InvalidStateError extends TroupeError {
  constructor(message: string, options: TroupeErrorOptions & { code?: Extract<TroupeErrorCode, 'INVALID_STATE' | 'PROCESS_NOT_FOUND' | 'AGENT_NOT_RUNNING' | 'ADAPTER_ALREADY_REGISTERED'> } = {}) {
    super(options.code ?? 'INVALID_STATE', message, options);
    this.name = 'InvalidStateError';
  }
}
