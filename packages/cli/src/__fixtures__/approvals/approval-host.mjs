// A host process for the approval restart test: one Claude Code agent (the real CLI, the fake API) whose permission
// callback defers every Bash call to the SQLite store APPROVAL_ROOT/approvals.db. With APPROVAL_SESSION set it
// resumes that CLI session. Prints one JSON line when its turn ends.
import { join } from 'node:path';
import { deferTo } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
import { openSqliteStore } from '@troupe/store-sqlite';

const { APPROVAL_ROOT: root, APPROVAL_PROMPT: prompt, APPROVAL_SESSION: session, FAKE_API_URL: baseUrl, CLAUDE_BIN: command } = process.env;
const store = openSqliteStore(join(root, 'approvals.db'));
const canUseTool = (request) => (request.tool === 'Bash' ? { behavior: 'defer', reason: 'shell commands need a human' } : true);
const adapters = new AdapterRegistry();
registerClaudeCodeAdapter(adapters, {
  command,
  baseUrl,
  apiKey: 'sk-ant-fake-000',
  home: join(root, 'home'),
  tmpDir: join(root, 'tmp'),
  maxRetries: 0,
  permissions: { canUseTool, ...deferTo(store, { pollMs: 50 }) },
});
const manager = new AgentManager({ adapters, defaultTimeoutMs: 100_000 });
try {
  await manager.ensureAgentStarted('coder', 'claude', { workDir: join(root, 'workspace') }, session ? { resume: session } : undefined);
  const reply = await manager.sendAndReceive('coder', prompt);
  console.log(JSON.stringify({ reply }));
} finally {
  await manager.cleanup();
  await store.close();
}
