/**
 * Custom adapter example: registers an adapter for `shout-agent` (a plain
 * command bundled here), then runs one turn through `AgentManager` and prints
 * each stream part as it arrives.
 *
 * Run: `npx tsx --conditions=@troupe/source examples/custom-adapter/src/main.ts`
 * (or `pnpm --filter @troupe/example-custom-adapter start`).
 */
import { AgentManager, registerAdapter } from '@troupe/core/cli-turn';
import { shoutAdapterPlugin } from './shout-adapter';

const unregister = registerAdapter(shoutAdapterPlugin);
const manager = new AgentManager();
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(2)}s`.padStart(6);

try {
  await manager.ensureAgentStarted('crier', 'shout', { systemInstruction: 'a town crier', workDir: process.cwd() });
  const turn = manager.send('crier', 'hear ye, the build is green', { timeoutMs: 10_000 });
  for await (const part of turn) {
    console.log(`${elapsed()}  ${part.type.padEnd(10)} ${JSON.stringify(part.type === 'text-delta' ? part.text : part)}`);
  }
  const result = await turn.result;
  const exit = await (await turn.run).exited;
  const how = result.outcome.status === 'completed' ? ` (${result.outcome.reason})` : '';
  console.log(`\nstatus: ${result.outcome.status}${how}, exit code: ${String(exit.exitCode)}`);
  console.log(`answer: ${result.text}`);
  if (result.agentError) process.exitCode = 1;
} finally {
  await manager.cleanup();
  unregister();
}
