import { createAnthropicModel } from '@troupe/adapter-claude/model';
import { createOpenAIModel } from '@troupe/adapter-codex/model';
import { createGeminiModel } from '@troupe/adapter-gemini/model';
import type { ChatModel, ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel, type ScriptedChatReply } from '@troupe/core/testing';

/** The three parts the offline main agent splits its task into. */
export const OFFLINE_TASKS = [
  'List the strengths of event sourcing for an order service',
  'List the risks of event sourcing for an order service',
  'Suggest a first step to try event sourcing safely',
];

const OFFLINE_FINDINGS: Record<string, string> = {
  [OFFLINE_TASKS[0] as string]: 'Full audit trail, easy temporal queries, natural fit for async projections.',
  [OFFLINE_TASKS[1] as string]: 'Schema evolution of old events, eventual consistency surprises, harder debugging.',
  [OFFLINE_TASKS[2] as string]: 'Event-source one bounded context (refunds) behind a feature flag; keep the CRUD tables as projections.',
};

/** The main agent's offline script: think, fork three sub-agents, then sum up what came back. */
export function offlineMainModel(): ChatModel {
  return createScriptedChatModel({
    responses: [
      {
        text: ['<thinking>Three independent questions: ', 'strengths, risks, first step.</thinking>', "I'll ask three sub-agents in parallel."],
        chunkDelayMs: 20,
        toolCalls: [{ id: 'fork_1', name: 'fork_agents', input: { tasks: OFFLINE_TASKS.map((task) => ({ task })) } }],
      },
      (request: ChatModelV1Request): ScriptedChatReply => {
        const last = request.messages.at(-1);
        const merged = last?.role === 'tool' ? (last.results[0]?.content ?? '') : '';
        const completed = /(\d+) completed/.exec(merged)?.[1] ?? '0';
        return { text: ['<response>Summary: ', `${completed} of 3 sub-agents reported back. `, 'Start with refunds behind a flag.</response>'], chunkDelayMs: 20 };
      },
    ],
  });
}

/** Sub-agents' offline answers: stream a little, then `task_finish` with their finding. */
export function offlineSubAgentModel(): ChatModel {
  const answer = (request: ChatModelV1Request): ScriptedChatReply => {
    const first = request.messages.find((message) => message.role === 'user');
    const task = first?.role === 'user' ? first.content : '';
    const finding = OFFLINE_FINDINGS[task] ?? 'No finding.';
    const delay = 30 + (Object.keys(OFFLINE_FINDINGS).indexOf(task) + 1) * 40;
    return { text: ['Looking ', 'into it...'], chunkDelayMs: delay, toolCalls: [{ name: 'task_finish', input: { result: finding } }] };
  };
  return createScriptedChatModel({ responses: Array.from({ length: 6 }, () => answer) });
}

/** A real model from the first API key found in the environment, or `undefined`. */
export function liveModel(env: NodeJS.ProcessEnv = process.env): { model: ChatModel; name: string } | undefined {
  if (env.ANTHROPIC_API_KEY) return { model: createAnthropicModel(), name: 'Anthropic (ANTHROPIC_API_KEY)' };
  if (env.OPENAI_API_KEY) return { model: createOpenAIModel(), name: 'OpenAI (OPENAI_API_KEY)' };
  if (env.GEMINI_API_KEY || env.GOOGLE_API_KEY) return { model: createGeminiModel(), name: 'Gemini (GEMINI_API_KEY / GOOGLE_API_KEY)' };
  return undefined;
}
