import { describe, expect, it } from 'vitest';
import { approvalStoreConformanceCases, withConformanceStore } from '@troupe/core/testing';
import { ApprovalStore, EventBus, InvalidStateError, MemoryStore, checkApprovalId, decideToolUse, deferTo, hashToolInput, serializeEvent, type AnyTroupeEvent, type PendingApproval, type ToolUseRequest } from '../index';

function request(overrides: Partial<ToolUseRequest> = {}): ToolUseRequest {
  return { id: 'call-1', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', input: { command: 'git push' }, target: 'git push', sessionId: 'sess-1', signal: new AbortController().signal, ...overrides };
}

/** Waits (bounded) until `store` lists a pending approval, as a second process polling the same store would. */
async function pendingIn(store: ApprovalStore): Promise<PendingApproval> {
  for (let i = 0; i < 500; i++) {
    const [first] = await store.listPending();
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no approval became pending');
}

const defer = () => ({ behavior: 'defer' as const, reason: 'a human decides pushes' });

describe('ApprovalStore.listPending order', () => {
  it('lists the calls in the order they were deferred, also when they were recorded in the same millisecond', async () => {
    const approvals = new ApprovalStore(new MemoryStore(), { now: () => 1_700_000_000_000 });
    const made: string[] = [];
    for (let index = 0; index < 8; index++) made.push((await approvals.putPending(request({ id: `call-${index}`, input: { command: `step ${index}` }, target: `step ${index}` }))).id);
    expect((await approvals.listPending()).map((pending) => pending.id)).toEqual(made);
    // Once some are decided, a new one still comes last.
    await approvals.resolveApproval(made[7]!, { behavior: 'allow', decidedBy: 'test' });
    const later = await approvals.putPending(request({ id: 'call-9', input: { command: 'step 9' } }));
    expect((await approvals.listPending()).map((pending) => pending.id)).toEqual([...made.slice(0, 7), later.id]);
  });
});

describe('ApprovalStore on MemoryStore (lookups, compaction, expiry)', () => {
  const withStore = withConformanceStore(({ now }) => new MemoryStore({ now }));
  for (const c of approvalStoreConformanceCases()) it(c.name, withStore(c));
});

describe('ApprovalStore with decideToolUse', () => {
  it('makes a deferred call wait for a decision made elsewhere, past timeoutMs, and allows it once', async () => {
    const shared = new MemoryStore();
    const host = new ApprovalStore(shared, { pollMs: 5 });
    const other = new ApprovalStore(shared); // another "process" on the same store
    const verdict = decideToolUse(request(), { canUseTool: defer, timeoutMs: 20, ...deferTo(host) });
    const pending = await pendingIn(other);
    expect(pending).toMatchObject({ callId: 'call-1', tool: 'Bash', kind: 'execute', target: 'git push', reason: 'a human decides pushes', sessionId: 'sess-1', inputHash: hashToolInput({ command: 'git push' }) });
    expect(checkApprovalId(pending.id)).toBe(pending.id);
    await new Promise((resolve) => setTimeout(resolve, 60)); // longer than timeoutMs: a deferred wait has no time limit
    await other.resolveApproval(pending.id, { behavior: 'allow', decidedBy: 'alice' });
    expect(await verdict).toMatchObject({ behavior: 'allow', input: { command: 'git push' }, record: { behavior: 'allow', decidedBy: 'approval', reason: 'approved by alice' } });
    expect(await other.listPending()).toEqual([]);
    // The decision was used by the waiting call: the same call asked again is deferred again, not allowed.
    const again = decideToolUse(request({ id: 'call-2' }), { canUseTool: defer, ...deferTo(host) });
    const second = await pendingIn(other);
    expect(second.id).not.toBe(pending.id);
    await other.resolveApproval(second.id, { behavior: 'deny', reason: 'not today', decidedBy: 'bob' });
    expect(await again).toMatchObject({ behavior: 'deny', message: 'The tool call was refused by bob: not today', record: { decidedBy: 'approval' } });
  });

  it('keeps the approval when the waiting turn ends, and lets the re-issued call run exactly once after the decision', async () => {
    const shared = new MemoryStore();
    const approvals = new ApprovalStore(shared, { pollMs: 5 });
    const turn = new AbortController();
    const waiting = decideToolUse(request({ signal: turn.signal }), { canUseTool: defer, ...deferTo(approvals) });
    const pending = await pendingIn(approvals);
    turn.abort(); // the host stops (or dies) while the call is pending
    expect(await waiting).toMatchObject({ behavior: 'deny', record: { decidedBy: 'aborted' } });
    expect((await approvals.listPending()).map((item) => item.id)).toEqual([pending.id]);

    await new ApprovalStore(shared).resolveApproval(pending.id, { behavior: 'allow', decidedBy: 'troupe approve' });
    let asked = 0;
    const canUseTool = () => {
      asked++;
      return defer();
    };
    // The resumed session re-issues the call (a new tool-use id, same tool and input): it runs without asking again.
    expect(await decideToolUse(request({ id: 'call-9' }), { canUseTool, ...deferTo(approvals) })).toMatchObject({ behavior: 'allow', record: { decidedBy: 'approval', id: 'call-9' } });
    expect(asked).toBe(0);
    // Exactly once: the next identical call is the callback's again (here it defers; the turn is already over).
    const ended = new AbortController();
    const next = decideToolUse(request({ id: 'call-10', signal: ended.signal }), { canUseTool, ...deferTo(approvals) });
    await pendingIn(approvals);
    ended.abort();
    expect(await next).toMatchObject({ behavior: 'deny', record: { decidedBy: 'aborted' } });
    expect(asked).toBe(1);
    // A different input never takes another call's decision.
    const [left] = await approvals.listPending();
    await approvals.resolveApproval(left!.id, { behavior: 'deny', reason: 'no', decidedBy: 'carol' });
    expect(await decideToolUse(request({ id: 'call-11', input: { command: 'git push --force' } }), { canUseTool: () => false, ...deferTo(approvals) })).toMatchObject({ behavior: 'deny', record: { decidedBy: 'callback' } });
    // …while the same input takes the denial once, with its reason.
    expect(await decideToolUse(request({ id: 'call-12' }), { canUseTool: () => true, ...deferTo(approvals) })).toMatchObject({ behavior: 'deny', message: 'The tool call was refused by carol: no' });
    expect(await decideToolUse(request({ id: 'call-13' }), { canUseTool: () => true, ...deferTo(approvals) })).toMatchObject({ behavior: 'allow', record: { decidedBy: 'callback' } });
  });

  it('does not let an approval override a policy deny', async () => {
    const approvals = new ApprovalStore(new MemoryStore(), { pollMs: 5 });
    const turn = new AbortController();
    const waiting = decideToolUse(request({ signal: turn.signal }), { canUseTool: defer, ...deferTo(approvals) });
    const pending = await pendingIn(approvals);
    turn.abort();
    await waiting;
    await approvals.resolveApproval(pending.id, { behavior: 'allow', decidedBy: 'alice' });
    expect(await decideToolUse(request(), { policy: { deny: ['Bash(git push*)'] }, ...deferTo(approvals) })).toMatchObject({ behavior: 'deny', record: { decidedBy: 'policy' } });
  });

  it('reuses the pending record of the same undecided call, and refuses unknown or twice-decided ids', async () => {
    const approvals = new ApprovalStore(new MemoryStore());
    const { signal: _signal, ...call } = request();
    const first = await approvals.putPending(call);
    const again = await approvals.putPending({ ...call, id: 'call-2' });
    expect(again.id).toBe(first.id);
    expect(await approvals.listPending()).toHaveLength(1);
    await approvals.resolveApproval(first.id, { behavior: 'deny', decidedBy: 'alice' });
    await expect(approvals.resolveApproval(first.id, { behavior: 'allow', decidedBy: 'bob' })).rejects.toThrow(/already decided \(deny, by alice\)/);
    await expect(approvals.resolveApproval('ap-x-00', { behavior: 'allow', decidedBy: 'bob' })).rejects.toBeInstanceOf(InvalidStateError);
    await expect(approvals.resolveApproval(first.id, { behavior: 'maybe' as 'allow', decidedBy: 'bob' })).rejects.toThrow(/behavior/);
    await expect(approvals.resolveApproval(first.id, { behavior: 'allow', decidedBy: ' ' })).rejects.toThrow(/decidedBy/);
    expect(() => checkApprovalId('1; rm -rf')).toThrow(/not an approval id/);
  });

  it('keeps an audit record of every decision with the input hash, never the input, and secrets redacted', async () => {
    const secret = 'sk-test-approval-0123456789abcdef';
    process.env.TROUPE_TEST_APPROVAL_TOKEN = secret;
    try {
      const bus = new EventBus();
      const seen: AnyTroupeEvent[] = [];
      bus.on('permission:decided', (event) => void seen.push(event));
      const approvals = new ApprovalStore(new MemoryStore(), { pollMs: 5 });
      const input = { command: `curl -H "Authorization: ${secret}" https://example.test` };
      const verdict = decideToolUse(request({ input, target: input.command }), { bus, canUseTool: defer, ...deferTo(approvals) });
      const pending = await pendingIn(approvals);
      expect(pending.target).not.toContain(secret);
      expect(pending.input).toEqual(input); // kept to run exactly as asked
      await approvals.resolveApproval(pending.id, { behavior: 'deny', reason: `leaks ${secret}`, decidedBy: 'alice' });
      const denied = await verdict;
      expect(denied.behavior === 'deny' && denied.message).not.toContain(secret);
      const audit = await approvals.listAudit();
      expect(audit).toEqual([
        { approvalId: pending.id, callId: 'call-1', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', inputHash: hashToolInput(input), behavior: 'deny', decidedBy: 'alice', reason: expect.stringContaining('leaks'), sessionId: 'sess-1', at: expect.any(Number) },
      ]);
      expect(JSON.stringify(audit)).not.toContain(secret);
      expect(seen).toHaveLength(1);
      expect(serializeEvent(seen[0]!)).not.toContain(secret);
      expect(serializeEvent(seen[0]!)).not.toContain('example.test');
      // The used decision no longer holds the input.
      expect((await approvals.getDecision(pending.id))?.input).toBeUndefined();
    } finally {
      delete process.env.TROUPE_TEST_APPROVAL_TOKEN;
    }
  });
});
