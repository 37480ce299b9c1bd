import { AgentError } from '../errors/agent-error';
import type { SecretRedactor } from '../util/redact-secrets';
import { serializeError } from '../util/serialize-error';
import type { AgentAdapter, AgentLineContext, AgentTurnStart } from '../adapter/v1/agent-adapter-v1';
import type { AgentStreamPart } from '../adapter/v1/agent-stream-part';

/** One turn's line parser: the adapter's `parseLine` bound to the turn's context. */
export interface AdapterTurnParser {
  /** Parts for one stdout line. Never throws: a throwing adapter yields an `error` part. */
  parse(line: string, json: unknown): AgentStreamPart[];
  /** Text held back by the redactor (a possible secret at the end of the last delta); call once when the turn ends. */
  end(): AgentStreamPart[];
}

/** How {@link startAdapterTurn} hides secrets in the parts. */
export interface AdapterTurnOptions {
  /**
   * The process's redactor. Every part is redacted with it (an adapter may
   * join or decode what the line redaction saw in pieces), and the text
   * deltas as one stream: a secret written over several deltas is hidden,
   * a tail that may begin one is held back until the next part or
   * {@link AdapterTurnParser.end}.
   */
  redactor?: SecretRedactor;
}

/**
 * Starts one turn of `adapter`: calls its turn-start hook (`startTurn`) and
 * returns a parser that hands every line of the turn to `parseLine` with the
 * turn's context (the hook's state, role, turn and line numbers).
 *
 * A second `turn-end` in one turn is an adapter bug (a CLI printing two
 * results, a parser ending the turn twice): it is kept in the parts, never
 * silently decides the turn (see {@link agentErrorOfTurn}), and is reported
 * once with a `TroupeWarning` naming the adapter and the role.
 *
 * @throws whatever `startTurn` throws (the turn cannot start).
 */
export function startAdapterTurn(adapter: AgentAdapter, start: AgentTurnStart, options: AdapterTurnOptions = {}): AdapterTurnParser {
  const state = adapter.startTurn?.(start);
  const { redactor } = options;
  const text = redactor?.stream();
  let lineIndex = 0;
  let turnEnds = 0;
  /** The deltas' held-back text, as a part (none when nothing is held). */
  const flush = (): AgentStreamPart[] => {
    const rest = text?.end();
    return rest ? [{ type: 'text-delta', text: rest }] : [];
  };
  const redact = (parts: AgentStreamPart[]): AgentStreamPart[] => {
    if (!redactor || !text) return parts;
    const out: AgentStreamPart[] = [];
    for (const part of parts) {
      if (part.type === 'text-delta') {
        const shown = text.write(part.text);
        if (shown !== '') out.push(shown === part.text ? part : { ...part, text: shown });
      } else out.push(...flush(), redactor.redactValue(part));
    }
    return out;
  };
  return {
    end: flush,
    parse(line, json) {
      const context: AgentLineContext = { ...start, state, lineIndex: lineIndex++ };
      let parts: AgentStreamPart[];
      try {
        parts = redact(adapter.parseLine(line, json, context));
      } catch (error) {
        return redact([{ type: 'error', message: `adapter ${adapter.adapterId} could not parse a line: ${serializeError(error).message}` }]);
      }
      for (const part of parts) {
        if (part.type === 'turn-end' && ++turnEnds === 2) {
          process.emitWarning(
            `adapter ${adapter.adapterId} ended turn ${start.turnNumber} of role "${start.roleId}" more than once; ` +
              'the turn is failed if any of its turn-end parts is an error, whatever comes after',
            { type: 'TroupeWarning', code: 'TROUPE_TURN_END_REPEATED' },
          );
        }
      }
      return parts;
    },
  };
}

/**
 * The `AgentError` a turn's parts report, or `undefined` when the turn did
 * not fail. The turn failed when any of its `turn-end` parts has `isError`
 * (an error is never overridden by a later `turn-end`). The message joins the
 * CLI's own error text — the last `error` part before that `turn-end` that is
 * not a retry notice — and the `turn-end` text, each once; `status` is the
 * HTTP status of the last such `error` part that has one.
 */
export function agentErrorOfTurn(adapterId: string, parts: readonly AgentStreamPart[]): AgentError | undefined {
  const endIndex = parts.findIndex((part) => part.type === 'turn-end' && part.isError);
  if (endIndex < 0) return undefined;
  const end = parts[endIndex] as Extract<AgentStreamPart, { type: 'turn-end' }>;
  const errors = parts.slice(0, endIndex).filter((part): part is Extract<AgentStreamPart, { type: 'error' }> => part.type === 'error' && part.retrying !== true);
  // The turn's own error status: skip retry notices (e.g. a 404 WebSocket fallback before a 500).
  const status = [...errors].reverse().find((part) => part.status !== undefined)?.status;
  const texts: string[] = [];
  for (const text of [errors.at(-1)?.message.trim(), end.text.trim()]) {
    if (!text || texts.some((seen) => seen.includes(text))) continue;
    for (let i = texts.length - 1; i >= 0; i--) if (text.includes(texts[i] as string)) texts.splice(i, 1);
    texts.push(text);
  }
  return new AgentError(`${adapterId} reported an error: ${texts.length > 0 ? texts.join(' — ') : 'turn failed'}`, {
    adapterId,
    ...(status !== undefined ? { status } : {}),
  });
}

/**
 * The answer of a turn, from the parts parsed as its lines streamed (each
 * stdout line is parsed once): the text of its last `turn-end` part, already
 * redacted like every part. `undefined` when no part ended the turn — an
 * adapter whose parser does not end turns, or a turn completed by idle time
 * or exit before its `turn-end`: only then does a runner read the answer from
 * the whole output with the adapter's `parseResponse`.
 */
export function answerOfTurn(parts: readonly AgentStreamPart[]): string | undefined {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as AgentStreamPart;
    if (part.type === 'turn-end') return part.text;
  }
  return undefined;
}
