import type { ChatMessage } from '@troupe/core';
import { AgentMarkupParser } from './agent-markup-parser';
import type { StoredToolCall } from './agent-record';
import type { AgentRunnerStopReason } from './agent-runner-stop-reason';

/** What a stored answer says, read the way the runner reads it as it streams. */
interface ReadAnswer {
  /** The visible answer: its `<response>` sections, or else its text outside any section (trimmed). */
  text: string;
  /** The end marker appeared (nothing after it counts). */
  endMarker: boolean;
  /** Its `<tool_call>` tags, in order. */
  tagCalls: Array<{ toolName: string; input: unknown; raw: string }>;
}

/** @internal Reads a whole stored answer like the runner reads a streamed one. */
export function readAnswer(raw: string, endMarker: string | undefined): ReadAnswer {
  const parser = new AgentMarkupParser(endMarker === undefined ? {} : { endMarker });
  const out: ReadAnswer = { text: '', endMarker: false, tagCalls: [] };
  let plain = '';
  let response = '';
  let sawResponse = false;
  for (const event of [...parser.push(raw), ...parser.end()]) {
    if (out.endMarker) break;
    if (event.type === 'text' && event.section !== 'thinking') {
      if (event.section === 'response') response += event.text;
      else plain += event.text;
    } else if (event.type === 'section-start' && event.section === 'response') sawResponse = true;
    else if (event.type === 'tool-call') out.tagCalls.push({ toolName: event.toolName, input: event.input, raw: event.raw });
    else if (event.type === 'end-marker') out.endMarker = true;
  }
  out.text = (sawResponse ? response : plain).trim();
  return out;
}

/**
 * @internal The tool calls of a stored assistant answer (native ones, then
 * its tags), for an answer stored without the record of its open calls (the
 * process stopped between the two writes).
 */
export function callsInAnswer(message: ChatMessage | undefined, endMarker: string | undefined): StoredToolCall[] {
  if (message?.role !== 'assistant') return [];
  const native: StoredToolCall[] = (message.toolCalls ?? []).map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    ...(call.rawInput !== undefined ? { rawInput: call.rawInput } : {}),
    source: 'native',
    iteration: 1,
  }));
  const tags: StoredToolCall[] = readAnswer(message.content, endMarker).tagCalls.map((call, index) => ({
    toolCallId: `tag_restart_${index + 1}`,
    toolName: call.toolName,
    input: call.input,
    rawInput: call.raw,
    source: 'tag',
    iteration: 1,
  }));
  return [...native, ...tags];
}

/**
 * @internal When a restarted agent's conversation ends with an answer that
 * called no tool, its turn was over before the process stopped: the answer
 * and why it ended, so it is not asked again.
 */
export function turnEndedBeforeRestart(messages: readonly ChatMessage[], endMarker: string | undefined): { text: string; stopReason: AgentRunnerStopReason } | undefined {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant') return undefined;
  const answer = readAnswer(last.content, endMarker);
  return { text: answer.text, stopReason: answer.endMarker ? 'end-marker' : 'turn-end' };
}
