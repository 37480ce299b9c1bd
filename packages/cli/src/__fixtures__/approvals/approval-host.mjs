// A host process for the approval restart test: one agent on a real CLI (APPROVAL_CLI: claude, codex or gemini;
// CLI_BIN is its binary) against the fake API, whose permission callback defers every shell command to the SQLite
// store APPROVAL_ROOT/approvals.db. With APPROVAL_SESSION set it resumes that CLI session. Prints one JSON line when
// its turn ends.
import { join } from 'node:path';
import { deferTo } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter, DEFAULT_CODEX_BASE_ARGS } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { openSqliteStore } from '@troupe/store-sqlite';

const { APPROVAL_CLI: cli, APPROVAL_ROOT: root, APPROVAL_PROMPT: prompt, APPROVAL_SESSION: session, FAKE_API_URL: baseUrl, CLI_BIN: command } = process.env;
const store = openSqliteStore(join(root, 'approvals.db'));
const canUseTool = (request) => (request.kind === 'execute' ? { behavior: 'defer', reason: 'shell commands need a human' } : true);
const permissions = { canUseTool, ...deferTo(store, { pollMs: 50 }) };
const home = join(root, 'home');
const tmpDir = join(root, 'tmp');
const adapters = new AdapterRegistry();
if (cli === 'claude') {
  registerClaudeCodeAdapter(adapters, { command, baseUrl, apiKey: 'sk-ant-fake-000', home, tmpDir, maxRetries: 0, permissions });
} else if (cli === 'codex') {
  // `full-auto`: Codex's Linux sandbox helper cannot be installed under a CODEX_HOME in /tmp; the callback guards every call.
  const codex = { command: process.execPath, baseArgs: [command, ...DEFAULT_CODEX_BASE_ARGS], baseUrl, apiKey: 'sk-troupe-int-0000000000000000', home, codexHome: join(home, '.codex'), tmpDir, permissionMode: 'full-auto', requestMaxRetries: 0, streamMaxRetries: 0, permissions };
  adapters.register({ type: 'codex', create: () => createCodexAdapter(codex) });
} else if (cli === 'gemini') {
  adapters.register({ type: 'gemini', create: () => createGeminiCliAdapter({ command, baseUrl, apiKey: 'fake-gemini-key-int', home, tmpDir, maxAttempts: 1, permissions }) });
} else {
  throw new Error(`APPROVAL_CLI must be claude, codex or gemini, got ${JSON.stringify(cli)}`);
}
const manager = new AgentManager({ adapters, defaultTimeoutMs: 100_000 });
try {
  await manager.ensureAgentStarted('coder', cli, { workDir: join(root, 'workspace') }, session ? { resume: session } : undefined);
  const reply = await manager.sendAndReceive('coder', prompt);
  console.log(JSON.stringify({ reply }));
} finally {
  await manager.cleanup();
  await store.close();
}
