import type { AgentAdapter } from '../adapter/v1/agent-adapter-v1';
import type { AgentTurnContext } from '../adapter/v1/member-agent-config';
import { CapabilityUnsupportedError } from '../errors/capability-unsupported-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { assertKnownOptions } from '../util/timeout-option';

/**
 * Which session a member's first turn runs in, given to
 * `AgentManager.ensureAgentStarted`. Without any, the first turn starts a
 * fresh session; either way, later turns resume the session the previous
 * turn ended in. The CLI keeps its sessions in its home folder, per working
 * folder: resume with the same home (`HOME`, `CODEX_HOME`, the adapter's
 * `home` setting) and the same `workDir` as the turn that made the session.
 *
 * @example
 * ```ts
 * // Process 1: run a turn and keep its session id.
 * const first = await manager.send('coder', 'Plan the refactor').result;
 * await saveSomewhere(first.sessionId);
 * // Process 2, later: resume it.
 * await manager.ensureAgentStarted('coder', 'claude', { workDir }, { resume: await loadSessionId() });
 * ```
 */
export interface AgentSessionOptions {
  /**
   * The session id to resume (`AgentTurnResult.sessionId` of an earlier
   * turn, from this process or another). Needs `capabilities.resume`.
   */
  resume?: string;
  /**
   * Continue the most recent session of the member's working folder, without
   * an id. Needs `capabilities.continueSession`. Not with `resume`.
   */
  continue?: boolean;
  /**
   * With `resume` or `continue`: the first turn runs in a new session that
   * starts as a copy of the resumed one (which is left unchanged); later turns
   * resume the copy. Needs `capabilities.forkSession`.
   */
  forkSession?: boolean;
}

const SESSION_OPTION_KEYS: readonly string[] = ['resume', 'continue', 'forkSession'];

/** Control characters and whitespace, which no CLI's session id holds. */
const UNSAFE_SESSION_ID = /[\s\p{Cc}]/u;

/**
 * Checks session options against the adapter that will run them: a bad
 * value is an `InvalidArgumentError` naming it; an option the adapter's CLI
 * cannot honour is a `CapabilityUnsupportedError` naming the adapter and the
 * option. The adapter checks the id's shape for its CLI when the process is
 * configured.
 */
export function checkSessionOptions(value: unknown, adapter: AgentAdapter): AgentSessionOptions {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    throw new InvalidArgumentError('options', `expected { resume?, continue?, forkSession? }, got ${value === null ? 'null' : typeof value}`);
  }
  assertKnownOptions(value, SESSION_OPTION_KEYS, 'options');
  const options = value as AgentSessionOptions;
  const { resume } = options;
  if (resume !== undefined) {
    if (typeof resume !== 'string' || resume === '' || resume.startsWith('-') || UNSAFE_SESSION_ID.test(resume)) {
      throw new InvalidArgumentError(
        'options.resume',
        `expected a session id (a turn's result.sessionId, e.g. "766389a5-2e15-4706-bb1d-13c76850782f"), got ${JSON.stringify(resume)}`,
      );
    }
  }
  for (const key of ['continue', 'forkSession'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') {
      throw new InvalidArgumentError(`options.${key}`, `expected a boolean, got ${typeof options[key]}`);
    }
  }
  if (resume !== undefined && options.continue === true) {
    throw new InvalidArgumentError('options.continue', 'give either resume (a session id) or continue: true (the last session of the folder), not both');
  }
  if (options.forkSession === true && resume === undefined && options.continue !== true) {
    throw new InvalidArgumentError('options.forkSession', 'forkSession copies a resumed session: give it with resume or continue: true');
  }
  const { adapterId, capabilities } = adapter;
  if (resume !== undefined && !capabilities.resume) {
    throw new CapabilityUnsupportedError(adapterId, 'resume', `The "${adapterId}" adapter cannot resume a session (capabilities.resume is false): options.resume is not supported`);
  }
  if (options.continue === true && capabilities.continueSession !== true) {
    throw new CapabilityUnsupportedError(
      adapterId,
      'continueSession',
      `The "${adapterId}" adapter cannot continue the last session of a folder (capabilities.continueSession is not true): options.continue is not supported`,
    );
  }
  if (options.forkSession === true && capabilities.forkSession !== true) {
    throw new CapabilityUnsupportedError(
      adapterId,
      'forkSession',
      `The "${adapterId}" adapter cannot fork a session (capabilities.forkSession is not true): options.forkSession is not supported`,
    );
  }
  return options;
}

/** True when two session option sets ask for the same session. */
export function sameSessionOptions(a: AgentSessionOptions, b: AgentSessionOptions): boolean {
  return a.resume === b.resume && (a.continue ?? false) === (b.continue ?? false) && (a.forkSession ?? false) === (b.forkSession ?? false);
}

/**
 * The session part of the turn context for a member's next process: the
 * session to resume when there is one, else "continue the last session"
 * while the caller's `continue` has not yet given the member a session; and
 * `forkSession` until a turn has run in the fork.
 */
export function sessionTurnContext(
  adapter: AgentAdapter,
  sessionId: string | undefined,
  pending: AgentSessionOptions | undefined,
): AgentTurnContext {
  if (!adapter.capabilities.resume && pending === undefined) return {};
  const context: AgentTurnContext = {};
  if (sessionId !== undefined && adapter.capabilities.resume) context.resumeSessionId = sessionId;
  else if (pending?.continue === true) context.continueLastSession = true;
  if (pending?.forkSession === true && (context.resumeSessionId !== undefined || context.continueLastSession === true)) context.forkSession = true;
  return context;
}
