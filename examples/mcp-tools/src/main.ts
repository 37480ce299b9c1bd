/**
 * MCP both ways, offline by default:
 *  1. an MCP server from npm (@modelcontextprotocol/server-filesystem, stdio) — its tools become Troupe
 *     tools that a (scripted) model calls in `runToolLoop`; the server stops with the run;
 *  2. a Troupe tool served over MCP (Streamable HTTP on 127.0.0.1) and called by an MCP client.
 * With `--cli claude|codex|gemini`, the Troupe tool is served to that agent CLI (installed and logged in)
 * through AgentManager's tool host instead, and the agent is asked to call it.
 *
 *   pnpm --filter @troupe/example-mcp-tools start [-- --cli claude]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
import { registerCodexAdapter } from '@troupe/adapter-codex';
import { registerGeminiCliAdapter } from '@troupe/adapter-gemini';
import { AdapterRegistry, AgentManager, isGroupAlive } from '@troupe/core/cli-turn';
import { defineTool, type ChatModelV1Request } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';
import { connectMcpServer, createMcpToolHost, startMcpToolServer } from '@troupe/mcp';
import { z } from 'zod';

const { values } = parseArgs({ options: { cli: { type: 'string' } } });
const CLIS = ['claude', 'codex', 'gemini'];
if (values.cli !== undefined && !CLIS.includes(values.cli)) {
  process.stderr.write(`--cli must be one of ${CLIS.join(', ')}, got "${values.cli}"\n`);
  process.exit(2);
}

/** The Troupe tool this example serves. */
const projectStatus = defineTool({
  name: 'project_status',
  description: 'The status of a project by name: build, open issues, next release.',
  parameters: z.object({ project: z.string().describe('Project name, e.g. "troupe"') }),
  execute: ({ project }) => ({ project, build: 'green', openIssues: 3, nextRelease: '0.2.0' }),
});

/** A scripted model: calls `tool` with `input`, then answers with what the tool said. */
function scriptedModel(tool: string, input: unknown) {
  return createScriptedChatModel({
    responses: [
      { toolCalls: [{ name: tool, input }] },
      (request: ChatModelV1Request) => {
        const last = request.messages.at(-1);
        return { text: `The ${tool} tool said: ${last?.role === 'tool' ? last.results[0]?.content : '(nothing)'}` };
      },
    ],
  });
}

const workspace = mkdtempSync(join(tmpdir(), 'troupe-example-mcp-'));
try {
  if (values.cli) await serveToCli(values.cli);
  else {
    await filesystemTools();
    await troupeToolsOverMcp();
  }
} finally {
  rmSync(workspace, { recursive: true, force: true });
}

async function filesystemTools(): Promise<void> {
  console.log('1. An MCP server from npm, its tools as Troupe tools');
  writeFileSync(join(workspace, 'notes.md'), '# Notes\nShip MCP support on Friday.\n');
  const require = createRequire(import.meta.url);
  const server = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
  const controller = new AbortController();
  const files = await connectMcpServer({ command: process.execPath, args: [server, workspace] }, { name: 'files', signal: controller.signal });
  console.log(`   server "${files.serverInfo?.name}" (pid ${files.pid}) offers ${files.tools.length} tools: ${files.tools.map((tool) => tool.name).slice(0, 5).join(', ')}, …`);
  const run = await runToolLoop({
    model: scriptedModel('read_text_file', { path: join(workspace, 'notes.md') }),
    prompt: 'What do the notes say?',
    tools: files.tools,
    signal: controller.signal,
  });
  console.log(`   model: ${run.text.replace(/\n/g, ' ')}`);
  // The server's lifetime is the run's: abort (or close()) and its whole process group goes.
  controller.abort();
  for (let i = 0; i < 100 && isGroupAlive(files.pid as number); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(`   server stopped with the run: ${!isGroupAlive(files.pid as number)}`);
}

async function troupeToolsOverMcp(): Promise<void> {
  console.log('2. A Troupe tool served over MCP');
  await using server = await startMcpToolServer({ tools: [projectStatus] });
  console.log(`   serving project_status at ${server.url} (bearer token required)`);
  await using client = await connectMcpServer(server.config, { name: 'troupe' });
  const run = await runToolLoop({ model: scriptedModel('project_status', { project: 'troupe' }), prompt: 'How is troupe doing?', tools: client.tools });
  console.log(`   model: ${run.text}`);
}

async function serveToCli(cli: string): Promise<void> {
  console.log(`Serving project_status to the ${cli} CLI over MCP`);
  const adapters = new AdapterRegistry();
  if (cli === 'claude') registerClaudeCodeAdapter(adapters);
  else if (cli === 'codex') registerCodexAdapter(adapters);
  else registerGeminiCliAdapter(adapters);
  const manager = new AgentManager({ adapters, toolHost: createMcpToolHost({ onToolCall: (call) => console.log(`   tool ${call.toolName} ran: ${call.result.content}`) }) });
  try {
    await manager.ensureAgentStarted('assistant', cli, { workDir: workspace, tools: [projectStatus] });
    const turn = manager.send('assistant', 'Call the project_status tool for the project "troupe" and tell me its build status in one sentence.');
    for await (const part of turn) if (part.type === 'text-delta') process.stdout.write(part.text);
    const result = await turn.result;
    console.log(result.agentError ? `\n   the CLI failed: ${result.agentError.message}` : '');
  } finally {
    await manager.cleanup();
  }
}
