import { join } from 'node:path';
import { listenDecisionSocket } from '@troupe/core/util';

/** Answers one control request the driver passes on (the CLI's `request` object). */
type ControlHandler = (request: unknown, signal: AbortSignal) => Promise<unknown>;

/** The Unix socket the Claude Code control driver asks the host on. */
export interface ClaudeControlSocket {
  readonly path: string;
  /** Stops listening; requests still open are aborted (the driver then fails closed). */
  close(): Promise<void>;
}

/**
 * Listens on `<dir>/control.sock` (the directory is private to this process) with core's decision socket: each line
 * `{"id":n,"request":{…}}` gets `{"id":n,"answer":{…}}` from `handler`, or `{"id":n,"error":"…"}` (the driver then
 * denies the call: fail closed).
 *
 * @internal
 */
export async function startClaudeControlSocket(dir: string, handler: ControlHandler): Promise<ClaudeControlSocket> {
  const server = await listenDecisionSocket(join(dir, 'control.sock'), { name: 'Troupe Claude Code control socket', handler });
  return { path: server.path, close: () => server.close() };
}
