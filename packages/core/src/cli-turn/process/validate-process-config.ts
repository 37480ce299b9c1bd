import { InvalidArgumentError } from '../../errors/invalid-argument-error';
import type { ProcessConfig } from '../../adapter/v1/process-config';

/** The child's environment: the host's (unless `inheritEnv` is false) with the config's changes. */
export function buildEnv(config: ProcessConfig): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = config.inheritEnv === false ? {} : { ...process.env };
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Rejects a malformed ProcessConfig with an error naming the field. */
export function validateProcessConfig(config: ProcessConfig): void {
  if (config === null || typeof config !== 'object') throw new InvalidArgumentError('config', 'expected a ProcessConfig object');
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw new InvalidArgumentError('config.command', 'expected a non-empty command name or path');
  }
  if (config.args !== undefined && (!Array.isArray(config.args) || config.args.some((arg) => typeof arg !== 'string'))) {
    throw new InvalidArgumentError('config.args', 'expected an array of strings');
  }
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (value !== undefined && typeof value !== 'string') {
      throw new InvalidArgumentError(`config.env.${name}`, `expected a string, got ${typeof value}`);
    }
  }
  if (config.messageDelivery !== undefined && config.messageDelivery !== 'stdin' && config.messageDelivery !== 'argument') {
    throw new InvalidArgumentError('config.messageDelivery', `expected "stdin" or "argument", got ${String(config.messageDelivery)}`);
  }
  if (config.control !== undefined && typeof config.control !== 'function') {
    throw new InvalidArgumentError('config.control', `expected a function that starts the process's control, got ${typeof config.control}`);
  }
}

