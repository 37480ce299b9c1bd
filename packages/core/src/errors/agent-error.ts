import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/**
 * The agent CLI reported that its turn failed (an API error, a failed turn):
 * Claude's `is_error` result, Codex `turn.failed`, Gemini `status: "error"`.
 */
export class AgentError extends TroupeError {
  /** Adapter that reported it (`claude`, `codex`, `gemini`…). */
  readonly adapterId: string;
  /** HTTP status of the provider error, when known. */
  readonly status: number | undefined;

  constructor(message: string, details: { adapterId: string; status?: number } & TroupeErrorOptions) {
    super('AGENT_ERROR', message, details);
    this.name = 'AgentError';
    this.adapterId = details.adapterId;
    this.status = details.status;
  }
}
