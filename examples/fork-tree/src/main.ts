/**
 * A main agent forks three sub-agents through @troupe/orchestrator; the agent
 * tree is printed every time an agent changes status.
 *
 *   pnpm --filter @troupe/example-fork-tree start            # offline, scripted models
 *   pnpm --filter @troupe/example-fork-tree start -- --live  # a real model (ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY)
 */
import { AgentOrchestrator, formatAgentTree, ToolManager, type AgentStrategy } from '@troupe/orchestrator';
import { liveModel, offlineMainModel, offlineSubAgentModel } from './fork-tree-models';

const live = process.argv.includes('--live');
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(2)}s`;

const TASK = 'Should our order service adopt event sourcing? Look at strengths, risks and a safe first step.';

async function main(): Promise<number> {
  let subModel = offlineSubAgentModel();
  let mainModel = offlineMainModel();
  if (live) {
    const found = liveModel();
    if (!found) {
      console.error('--live needs an API key: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or run without --live).');
      return 2;
    }
    console.log(`Live mode with ${found.name}`);
    subModel = found.model;
    mainModel = found.model;
  } else {
    console.log('Offline mode (scripted models; pass --live to use a real one)');
  }

  const orchestrator = new AgentOrchestrator({
    model: subModel,
    maxConcurrency: 4,
    // Sub-agents only read: no writes, no shell.
    tools: new ToolManager({ workspaceTools: { root: process.cwd(), writeFile: false, shellExec: false } }),
    subAgentStrategy: {
      type: 'analyst',
      systemPrompt: 'You are an analyst sub-agent. Task: {{task}}\nAnswer in two sentences at most, then call task_finish with that answer.',
      maxIterations: 4,
      retry: { maxRetries: 1 },
      timeoutMs: 120_000,
    },
  });
  orchestrator.onAgentStatusChanged((change) => {
    console.log(`\n[${elapsed()}] ${change.agentId}: ${change.from} → ${change.to}${change.reason ? ` (${change.reason})` : ''}`);
    console.log(formatAgentTree(orchestrator.getAgentTree()));
  });
  orchestrator.bus.on('orchestrator:markup-malformed', (event) => console.log(`[${elapsed()}] ${event.payload.agentId}: malformed markup (${event.payload.reason})`));

  const mainStrategy: AgentStrategy = {
    type: 'lead',
    model: mainModel,
    systemPrompt:
      'You lead a small team. Split the task into exactly three independent questions and call fork_agents once with them. ' +
      'When their results come back, answer in <response>…</response> with a three-sentence summary.',
    maxIterations: 4,
    timeoutMs: 300_000,
  };
  const mainId = orchestrator.createAgent({ task: TASK }, mainStrategy);
  const stop = () => void orchestrator.terminateAll('interrupted (Ctrl-C)');
  process.once('SIGINT', stop);
  try {
    const result = await orchestrator.runAgent(mainId, {
      sinks: { thinking: () => undefined, text: (delta) => process.stdout.write(delta) },
    });
    const counts = orchestrator.getAgentTree().counts;
    console.log(`\n\nMain agent answered (${result.stopReason}, ${result.iterations} model calls):\n${result.text}`);
    console.log(`\nDone in ${elapsed()}: ${counts.completed} agents completed, ${counts.error} failed, ${counts.terminated} terminated.`);
    return 0;
  } catch (error) {
    console.error(`\nThe main agent did not complete: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    process.off('SIGINT', stop);
  }
}

process.exitCode = await main();
