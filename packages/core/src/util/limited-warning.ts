import { redactSecrets, secretValuesFromEnv } from './redact-secrets';

/**
 * A `TroupeWarning` reporter that stops after `limit` warnings, saying so in
 * the last one: for input a peer controls (bad frames on a socket), where
 * logging every one would let the peer flood the host's log. Each message is
 * redacted (secret-named environment values, well-known key shapes) before it
 * is emitted.
 *
 * @example
 * ```ts
 * const warn = limitedWarning('Troupe control socket: bad request', 5);
 * warn('"id" must be an integer');
 * ```
 */
export function limitedWarning(prefix: string, limit: number): (reason: string) => void {
  let count = 0;
  return (reason) => {
    if (count >= limit) return;
    count++;
    const more = count === limit ? ` (the limit of ${limit} warnings is reached: further ones are not logged)` : '';
    process.emitWarning(`${prefix}: ${redactSecrets(reason, secretValuesFromEnv(process.env))}${more}`, 'TroupeWarning');
  };
}
