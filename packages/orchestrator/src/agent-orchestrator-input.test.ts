import { InvalidArgumentError, InvalidStateError, type AnyTroupeEvent } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { AgentOrchestrator, type AgentStrategy } from './index';
import { lastUserText, modelAnswering, recordStatusChanges } from './orchestrator-test-helpers';

const assistant: AgentStrategy = { type: 'assistant', systemPrompt: 'You help with release plans.', waitForInput: true };

describe('AgentOrchestrator: agents that wait for input (seed 004 "wait for user input")', () => {
  it('answers, waits with its conversation, takes the next message, and completes on request', async () => {
    const model = modelAnswering((request) => ({ text: `Noted: ${lastUserText(request)}` }));
    const orchestrator = new AgentOrchestrator({ model });
    const changes = recordStatusChanges(orchestrator);
    const events: AnyTroupeEvent[] = [];
    orchestrator.bus.on('*', (event) => void events.push(event));
    const id = orchestrator.createAgent({ task: 'Plan the 2.0 release' }, assistant);

    const first = await orchestrator.runAgent(id);
    expect(first).toMatchObject({ agentId: id, status: 'waiting', text: 'Noted: Plan the 2.0 release', stopReason: 'turn-end', iterations: 1 });
    expect(orchestrator.getAgentStatus(id)).toBe('waiting');
    expect(orchestrator.getAgent(id)).toMatchObject({ status: 'waiting', result: 'Noted: Plan the 2.0 release', inputs: 0, iterations: 1 });
    expect(orchestrator.getMessages(id)).toEqual([
      { role: 'user', content: 'Plan the 2.0 release' },
      { role: 'assistant', content: 'Noted: Plan the 2.0 release' },
    ]);

    const second = await orchestrator.sendMessage(id, 'Move the beta to Friday.');
    expect(second).toMatchObject({ status: 'waiting', text: 'Noted: Move the beta to Friday.' });
    // The model saw the whole conversation, then the new message.
    expect(model.requests[1]?.messages).toEqual([
      { role: 'user', content: 'Plan the 2.0 release' },
      { role: 'assistant', content: 'Noted: Plan the 2.0 release' },
      { role: 'user', content: 'Move the beta to Friday.' },
    ]);
    expect(model.requests[1]?.system).toBe('You help with release plans.');
    expect(orchestrator.getAgent(id)).toMatchObject({ status: 'waiting', inputs: 1, iterations: 2 });

    const info = orchestrator.completeAgent(id);
    expect(info).toMatchObject({ status: 'completed', result: 'Noted: Move the beta to Friday.' });
    expect(changes.map((change) => `${change.from}→${change.to}`)).toEqual(['idle→running', 'running→waiting', 'waiting→running', 'running→waiting', 'waiting→completed']);
    const waiting = events.filter((event) => event.type === 'orchestrator:agent-waiting').map((event) => event.payload);
    expect(waiting).toEqual([
      { agentId: id, rootId: id, text: 'Noted: Plan the 2.0 release', stopReason: 'turn-end', messages: 2 },
      { agentId: id, rootId: id, text: 'Noted: Move the beta to Friday.', stopReason: 'turn-end', messages: 4 },
    ]);
    expect(events.filter((event) => event.type === 'orchestrator:agent-input').map((event) => event.payload)).toEqual([
      { agentId: id, text: 'Move the beta to Friday.', inputs: 1 },
    ]);
    await expect(orchestrator.sendMessage(id, 'more?')).rejects.toThrow(/is completed; only an agent waiting for input/);
  });

  it('gives its concurrency slot back while it waits, and queues for one to answer the next message', async () => {
    const model = modelAnswering((request) => ({ text: `re: ${lastUserText(request)}` }));
    const orchestrator = new AgentOrchestrator({ model, maxConcurrency: 1 });
    const chat = orchestrator.createAgent({ task: 'hello' }, assistant);
    await orchestrator.runAgent(chat);
    // The only slot is free: another agent runs while the first one waits.
    const other = orchestrator.createAgent({ task: 'one-off job' }, { type: 'job', systemPrompt: '' });
    await expect(orchestrator.runAgent(other)).resolves.toMatchObject({ status: 'completed', text: 're: one-off job' });
    await expect(orchestrator.sendMessage(chat, [{ role: 'user', content: 'and now?' }])).resolves.toMatchObject({ status: 'waiting', text: 're: and now?' });
  });

  it('context.waitForInput overrides the strategy; a tool that ends the task completes it; forks never wait', async () => {
    const sub = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'task_finish', input: { result: 'sub done' } }] }] });
    const lead = createScriptedChatModel({
      responses: [{ toolCalls: [{ name: 'fork_agents', input: { tasks: [{ task: 'check', strategy: 'checker' }] } }] }, { text: 'All checked.' }],
    });
    const orchestrator = new AgentOrchestrator({ strategies: [{ type: 'checker', systemPrompt: '', model: sub, waitForInput: true }] });
    const id = orchestrator.createAgent({ task: 'check things', waitForInput: true }, { type: 'lead', systemPrompt: '', model: lead });
    await expect(orchestrator.runAgent(id)).resolves.toMatchObject({ status: 'waiting', text: 'All checked.' });
    expect(orchestrator.getAgentTree().roots[0]?.children.map((child) => child.status)).toEqual(['completed']);

    const plain = orchestrator.createAgent({ task: 'no chat', waitForInput: false }, { type: 'chatty', systemPrompt: '', model: createScriptedChatModel({ responses: [{ text: 'ok' }] }), waitForInput: true });
    await expect(orchestrator.runAgent(plain)).resolves.toMatchObject({ status: 'completed' });

    const finisher = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'task_finish', input: { result: 'finished by tool' } }] }] });
    const subId = orchestrator.createAgent({ task: 'finish', parentId: id }, { type: 'finisher', systemPrompt: '', model: finisher, waitForInput: true });
    await expect(orchestrator.runAgent(subId)).resolves.toMatchObject({ status: 'completed', text: 'finished by tool', stopReason: 'task-finish' });
  });

  it('rejects bad messages and bad states clearly, and a waiting agent can be terminated or awaited', async () => {
    const model = modelAnswering((request) => ({ text: `re: ${lastUserText(request)}` }));
    const orchestrator = new AgentOrchestrator({ model });
    const id = orchestrator.createAgent({ task: 'hi' }, assistant);
    await expect(orchestrator.sendMessage(id, 'too early')).rejects.toThrow(InvalidStateError);
    expect(() => orchestrator.completeAgent(id)).toThrow(/is idle; only an agent waiting for input can be completed/);
    const waited = orchestrator.waitForAgent(id);
    await orchestrator.runAgent(id);
    await expect(waited).resolves.toMatchObject({ id, status: 'waiting' });
    await expect(orchestrator.runAgent(id)).rejects.toThrow(/it waits for input: use sendMessage\(\)/);
    await expect(orchestrator.sendMessage(id, '   ')).rejects.toThrow(InvalidArgumentError);
    await expect(orchestrator.sendMessage(id, [])).rejects.toThrow(/at least one chat message/);
    await expect(orchestrator.sendMessage(id, [{ role: 'system', content: 'x' } as never])).rejects.toThrow(/message\[0\]/);

    const pending = orchestrator.sendMessage(id, 'first');
    await expect(orchestrator.sendMessage(id, 'second')).rejects.toThrow(/already has a message waiting to run|is running/);
    await pending;

    expect(await orchestrator.terminateAgent(id, 'chat closed')).toEqual([id]);
    expect(orchestrator.getAgent(id)).toMatchObject({ status: 'terminated', error: { message: 'chat closed' } });
    await expect(orchestrator.waitForAgent(id)).resolves.toMatchObject({ status: 'terminated' });
  });
});
