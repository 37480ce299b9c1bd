import { describe, expect, it } from 'vitest';
import { packageDir, runNodeScript } from './packaging-kit';

// The dual-package hazard: in one process, `require('@troupe/adapter-claude')` loads the CJS build of core
// while `import '@troupe/core'` loads the ESM build — two copies of every module. Process-wide state must
// still be one: these scripts run the built packages with plain node, as a user's app does.

const prelude = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
const cjsCore = { ...require('@troupe/core'), ...require('@troupe/core/cli-turn') };
const esmCore = { ...(await import('@troupe/core')), ...(await import('@troupe/core/cli-turn')) };
if (cjsCore.AgentManager === esmCore.AgentManager) throw new Error('expected two copies of core (CJS and ESM)');
`;

describe('process-wide state is shared by the ESM and CJS builds', () => {
  it('an adapter registered through a CJS require is found through the ESM import, and the other way round', () => {
    const result = runNodeScript<{ esmHasClaude: boolean; esmAdapterId: string; cjsHasCodex: boolean; cjsTypes: string[] }>(
      packageDir('troupe'), // depends on every adapter
      `${prelude}
require('@troupe/adapter-claude').registerClaudeCodeAdapter();
const { registerCodexAdapter } = await import('@troupe/adapter-codex');
registerCodexAdapter();
console.log(JSON.stringify({
  esmHasClaude: esmCore.defaultAdapterRegistry.has('claude'),
  esmAdapterId: esmCore.defaultAdapterRegistry.create('claude').adapterId,
  cjsHasCodex: cjsCore.defaultAdapterRegistry.has('codex'),
  cjsTypes: cjsCore.defaultAdapterRegistry.types(),
}));`,
    );
    expect(result).toEqual({ esmHasClaude: true, esmAdapterId: 'claude', cjsHasCodex: true, cjsTypes: ['claude', 'codex'] });
  });

  it('an AgentManager from the ESM build runs an adapter registered through CJS', () => {
    const result = runNodeScript<{ error: string }>(
      packageDir('troupe'),
      `${prelude}
require('@troupe/adapter-gemini').registerGeminiCliAdapter(undefined, { command: '/nonexistent/gemini-for-dual-package-test' });
const manager = new esmCore.AgentManager();
let error = 'none';
try {
  await manager.ensureAgentStarted('coder', 'gemini');
  await manager.sendAndReceive('coder', 'hi');
} catch (e) { error = e.code; }
await manager.cleanup();
console.log(JSON.stringify({ error }));`,
    );
    // Found (not ADAPTER_NOT_FOUND): the adapter ran and its command is missing.
    expect(result.error).toBe('COMMAND_NOT_FOUND');
  });

  it('event schemas registered through CJS parse through ESM', () => {
    const result = runNodeScript<{ type: string; esmKnows: boolean }>(
      packageDir('troupe'),
      `${prelude}
require('@troupe/looper').registerLooperEvents();
const event = { type: 'looper:command', version: 1, timestamp: 1, source: 'test', payload: { looperId: 'l', channelId: 'looper', command: 'status', accepted: true, reply: 'idle' } };
let esmKnows = true;
try { esmCore.parseEvent(event); } catch { esmKnows = false; }
console.log(JSON.stringify({ type: esmCore.parseEvent(JSON.stringify(event)).type, esmKnows }));`,
    );
    expect(result).toEqual({ type: 'looper:command', esmKnows: true });
  });

  it('process groups spawned through one build are tracked (and killed at exit) through the other', () => {
    const result = runNodeScript<{ esmTracked: number; cjsTracked: number; after: number }>(
      packageDir('@troupe/core'),
      `${prelude}
const run = cjsCore.runProcess({ command: 'sleep', args: ['30'] }, { message: '', completion: { type: 'exit' } });
await new Promise((resolve) => setTimeout(resolve, 200));
const esmTracked = esmCore.trackedProcessGroupCount();
const cjsTracked = cjsCore.trackedProcessGroupCount();
await run.cancel();
console.log(JSON.stringify({ esmTracked, cjsTracked, after: esmCore.trackedProcessGroupCount() }));`,
    );
    expect(result).toEqual({ esmTracked: 1, cjsTracked: 1, after: 0 });
  });

  it('ids from counters never repeat across the two builds', () => {
    const result = runNodeScript<{ ids: string[] }>(
      packageDir('@troupe/core'),
      `${prelude}
const ids = [];
for (const core of [cjsCore, esmCore, cjsCore]) {
  const run = core.runProcess({ command: 'true' }, { message: '', completion: { type: 'exit' } });
  ids.push(run.processId);
  await run.outcome;
}
console.log(JSON.stringify({ ids }));`,
    );
    expect(new Set(result.ids).size).toBe(3);
  });

  it('the pipeline refuses a second planner over the same store across builds, and the default orchestrator is one', () => {
    const pipeline = runNodeScript<{ error: string }>(
      packageDir('@troupe/pipeline'),
      `${prelude}
const cjsPipeline = require('@troupe/pipeline');
const esmPipeline = await import('@troupe/pipeline');
const store = new esmCore.MemoryStore();
let release;
const gate = new Promise((resolve) => { release = resolve; });
const options = { store, threadId: 't1', planner: async () => { await gate; return null; }, executor: () => 'ok' };
const first = cjsPipeline.createBatchPipeline(options).run();
await new Promise((resolve) => setTimeout(resolve, 50));
let error = 'none';
try { await esmPipeline.createBatchPipeline(options).run(); } catch (e) { error = e.code; }
release();
await first;
console.log(JSON.stringify({ error }));`,
    );
    expect(pipeline.error).toBe('INVALID_STATE');

    const orchestrator = runNodeScript<{ same: boolean }>(
      packageDir('@troupe/orchestrator'),
      `${prelude}
const cjs = require('@troupe/orchestrator');
const esm = await import('@troupe/orchestrator');
console.log(JSON.stringify({ same: cjs.getDefaultOrchestrator() === esm.getDefaultOrchestrator() }));`,
    );
    expect(orchestrator.same).toBe(true);
  });
});
