import { englishCliMessages } from '../i18n/cli-messages';
import type { CliOptionSpec } from './parse-cli-args';

const HELP: CliOptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'Show this help.' };
const WORKSPACE: CliOptionSpec = { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'The project folder the agents work in; state goes in DIR/.troupe/. Default: the current folder.' };
const NEW_SESSION: CliOptionSpec = { name: 'newsession', type: 'boolean', description: 'Start a fresh session (Looper state, pending tasks and messages) instead of resuming the previous one.' };
const AUTO_ALLOW: CliOptionSpec = { name: 'auto-allow', type: 'boolean', description: 'Let agent CLIs edit files and run commands without asking (full-auto). Default: file edits only.' };
const MCP: CliOptionSpec = {
  name: 'mcp',
  type: 'string',
  value: 'FILE',
  description: 'MCP servers for the agent CLIs, from a .mcp.json-style file ({"mcpServers": {"name": {"command": …} | {"type": "http", "url": …}}}; ${VAR} expanded).',
};
const REGISTRY: CliOptionSpec = {
  name: 'registry',
  type: 'string',
  value: 'FILE',
  description: 'Agent registry (schema 1.2; 1.1 is read with a warning). Default: WORKSPACE/.troupe/agents.json, else ~/.troupe/agents/config.json.',
};
const CODER: CliOptionSpec = { name: 'coder', type: 'string', value: 'AGENT', description: 'Coder agent: an entry of the agent registry, or claude, codex or gemini. Default: claude.' };
const REVIEWER: CliOptionSpec = {
  name: 'reviewer',
  type: 'string',
  value: 'AGENT',
  description: "Review agent: a registry entry, claude, codex, gemini, or tests (runs the test command and reports health from the results). Default: the Coder's agent.",
};
const MODEL: CliOptionSpec = { name: 'model', type: 'string', value: 'PROVIDER[:MODEL]', description: 'Model for DevHub and JUDGE: anthropic, openai or gemini, optionally :MODEL. Default: TROUPE_MODEL, else the first provider whose API key is set.' };

const REDIS_QUEUE: CliOptionSpec = { name: 'queue', type: 'string', value: 'REDIS_URL', description: 'Run on the workers of this BullMQ/Redis queue (see `troupe worker`) instead of here; progress streams back. With --job, control that job.' };
const GIT: CliOptionSpec = { name: 'git', type: 'string', value: 'URL', description: 'With --queue / submit: a git repository each worker clones, instead of --workspace (a folder the workers can reach).' };

/** Options of the Looper that DevHub starts (`troupe devhub`, and the interactive session). */
const DEVHUB_LOOPER_OPTIONS: readonly CliOptionSpec[] = [
  CODER,
  REVIEWER,
  REGISTRY,
  { name: 'max-iterations', type: 'string', value: 'N', description: 'Iterations per Looper run. Default: 5.' },
  { name: 'judge', type: 'string', value: 'rules|model', description: 'JUDGE: the rule policy, or the model. Default: the model when one is configured, else the rules.' },
  { name: 'test-command', type: 'string', value: 'COMMAND', description: 'The tests reviewer\'s command. Default: "node --test".' },
  { name: 'step-timeout', type: 'string', value: 'SECONDS', description: 'Time limit of each Looper step.' },
  MCP,
];

/** Options of `troupe looper`. */
export const LOOPER_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'COMMAND', description: 'A Looper command as JSON ({"type":"start","task":"…"}, {"type":"status"}, {"type":"add_pending","task":"…"}, {"type":"stop"}) or plain text (= start that task).' },
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  CODER,
  REVIEWER,
  REGISTRY,
  { name: 'max-iterations', type: 'string', value: 'N', description: 'Iterations per run. Default: 5.' },
  { name: 'judge', type: 'string', value: 'rules|model', description: 'JUDGE: the rule policy, or the model. Default: the model when one is configured, else the rules.' },
  MODEL,
  { name: 'test-command', type: 'string', value: 'COMMAND', description: 'The tests reviewer\'s command, split on spaces (no shell). Default: "node --test".' },
  { name: 'step-timeout', type: 'string', value: 'SECONDS', description: 'Time limit of each Coder, Review and JUDGE step. Default: 15 min / 10 min / 2 min.' },
  MCP,
  REDIS_QUEUE,
  { name: 'job', type: 'string', value: 'ID', description: 'With --queue: the queued job a status, stop or add_pending command is for.' },
  GIT,
  // Seed 000 spelling: `--looper` selects this command.
  { name: 'looper', type: 'boolean', description: 'Accepted for compatibility (`troupe --looper -p …`).' },
  HELP,
];

/** Options of `troupe devhub`. */
export const DEVHUB_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'TEXT', description: 'What to ask DevHub. Without -p: an interactive session on the DevHub channel.' },
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  MODEL,
  ...DEVHUB_LOOPER_OPTIONS,
  { name: 'devhub', type: 'boolean', description: 'Accepted for compatibility (`troupe --devhub -p …`).' },
  HELP,
];

/** Options of `troupe doctor`. */
export const DOCTOR_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'json', type: 'boolean', description: 'Print the report as JSON.' },
  REGISTRY,
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'Look for the agent registry in DIR/.troupe/agents.json first. Default: the current folder.' },
  HELP,
];

/** Options of `troupe migrate-registry`. */
export const MIGRATE_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'dry-run', type: 'boolean', description: 'Show what would change without writing anything.' },
  HELP,
];

/** Options of `troupe team`. */
export const TEAM_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'prompt', short: 'p', type: 'string', value: 'TEXT', description: 'The message that starts the team\'s conversation.' },
  WORKSPACE,
  { name: 'config', type: 'string', value: 'FILE', description: 'Team file. Default: WORKSPACE/.troupe/team.json.' },
  { name: 'from', type: 'string', value: 'MEMBER', description: 'Member (id or name) who says the first message, e.g. you at the terminal.' },
  { name: 'to', type: 'string', value: 'MEMBER', description: 'Member (id or name) who speaks first.' },
  REGISTRY,
  AUTO_ALLOW,
  HELP,
];

/** Options of `troupe usage`. */
export const USAGE_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'The workspace whose sessions to report. Default: the current folder.' },
  { name: 'json', type: 'boolean', description: 'Print the totals as JSON (per session: totals, byAgent, byRun, byModel).' },
  HELP,
];

/** Options of `troupe worker`. */
export const WORKER_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'redis', type: 'string', value: 'URL', description: 'The Redis server of the queue (redis://[user:password@]host:port[/db]).' },
  { name: 'concurrency', type: 'string', value: 'N', description: 'Jobs run at once on this worker, per queue. Default: 1.' },
  { name: 'queues', type: 'string', value: 'A,B', description: 'Queues to serve. Default: troupe-looper. Names ending in -pipeline run pipeline tasks (a --coder turn each), in -agents orchestrator sub-agents (on --model); others Looper runs.' },
  { name: 'coder', type: 'string', value: 'AGENT', description: 'The agent CLI of pipeline tasks. Default: claude.' },
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'Where pipeline tasks run. Default: the current folder.' },
  MODEL,
  REGISTRY,
  AUTO_ALLOW,
  { name: 'test-command', type: 'string', value: 'COMMAND', description: 'The tests reviewer\'s command. Default: "node --test".' },
  { name: 'work-dir', type: 'string', value: 'DIR', description: 'Where git workspaces are cloned. Default: a troupe-worker folder in the temp folder.' },
  { name: 'allow-root', type: 'string', value: 'DIR', repeatable: true, description: 'A folder jobs may work in (their --workspace, or a local --git repository); repeat it for more. Jobs naming any other folder fail. Default: the --work-dir only.' },
  { name: 'allow-local-git', type: 'boolean', description: 'Accept local repositories (file:// or a path, inside an --allow-root) as a job\'s --git. Default: only https:// and ssh:// (user@host:path).' },
  { name: 'clone-timeout', type: 'string', value: 'SECONDS', description: 'Time limit of a job\'s git clone; git is then killed and the attempt fails. Default: 600.' },
  HELP,
];

/** Options of `troupe submit`. */
export const SUBMIT_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'redis', type: 'string', value: 'URL', description: 'The Redis server of the queue.' },
  { name: 'prompt', short: 'p', type: 'string', value: 'TASK', description: 'The task of the Looper run.' },
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'A project folder the workers can reach (shared disk). Default: the current folder.' },
  GIT,
  { name: 'ref', type: 'string', value: 'REF', description: 'With --git: the branch or tag to clone.' },
  { name: 'coder', type: 'string', value: 'AGENT', description: "Coder agent, resolved on the worker (its registry and keys). Default: claude." },
  { name: 'reviewer', type: 'string', value: 'AGENT', description: "Review agent on the worker, or tests. Default: the Coder's agent." },
  { name: 'judge', type: 'string', value: 'rules|PROVIDER[:MODEL]', description: "JUDGE: the rule policy, or a model the worker has the key for. Default: rules." },
  { name: 'max-iterations', type: 'string', value: 'N', description: 'Iterations per run. Default: 5.' },
  { name: 'step-timeout', type: 'string', value: 'SECONDS', description: 'Time limit of each step.' },
  { name: 'attempts', type: 'string', value: 'N', description: 'Attempts if a worker fails or dies (retried from the last checkpoint, with backoff). Default: 3.' },
  { name: 'wait', type: 'boolean', description: 'Follow the run: print its progress as it streams back, exit with how it ended.' },
  HELP,
];

/** Options of `troupe dashboard`. */
export const DASHBOARD_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'The workspace to watch (its saved session, and the troupe process running it). Default: the current folder.' },
  { name: 'port', type: 'string', value: 'N', description: 'Port on 127.0.0.1. Default: a random free port.' },
  { name: 'allowed-host', type: 'string', value: 'A,B', description: 'Host names the page may also be opened under (name or name:port), e.g. an SSH tunnel\'s localhost:8080 or a proxy\'s name. Default: 127.0.0.1, localhost and [::1] on the dashboard\'s port; any other Host gets 403.' },
  { name: 'queue', type: 'string', value: 'REDIS_URL', description: 'Also show the jobs of the BullMQ queues on this Redis (waiting, active, done, failed), see `troupe worker`.' },
  { name: 'queues', type: 'string', value: 'A,B', description: 'With --queue: the queues to show. Default: troupe-looper, troupe-pipeline, troupe-agents.' },
  HELP,
];

/** Options of `troupe` with no command (the interactive session) and global flags. */
export const ROOT_OPTIONS: readonly CliOptionSpec[] = [
  WORKSPACE,
  NEW_SESSION,
  AUTO_ALLOW,
  MODEL,
  ...DEVHUB_LOOPER_OPTIONS,
  { name: 'version', short: 'v', type: 'boolean', description: 'Print the version.' },
  HELP,
];

/** Options of `troupe help`. */
export const HELP_OPTIONS: readonly CliOptionSpec[] = [HELP];

/** The commands, for `troupe --help` and "did you mean". */
export const COMMANDS = [
  { name: 'looper', summary: 'Run the Looper (Coder → Review → JUDGE) on a workspace, or control the one running there.' },
  { name: 'devhub', summary: 'Ask DevHub (a model that answers and starts Looper runs).' },
  { name: 'team', summary: 'Run the team in .troupe/team.json.' },
  { name: 'dashboard', summary: 'Serve a live web dashboard of a workspace (Looper, agents, team, pipeline, usage) on 127.0.0.1.' },
  { name: 'doctor', summary: 'Show installed agent CLIs and versions, API keys, and what the demo will use.' },
  { name: 'worker', summary: 'Run Looper jobs from a BullMQ/Redis queue on this machine (scale out).' },
  { name: 'submit', summary: 'Send a Looper run to the workers of a queue.' },
  { name: 'migrate-registry', summary: 'Migrate an agent registry file from schema 1.1 to 1.2 (keeps a backup).' },
  { name: 'usage', summary: 'Show the tokens and cost of the sessions of a workspace (per agent, run and model).' },
  { name: 'help', summary: 'Show help for a command.' },
] as const;

function formatOptions(specs: readonly CliOptionSpec[]): string {
  const rows = specs
    .filter((spec) => spec.name !== 'looper' && spec.name !== 'devhub')
    .map((spec) => [`${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${spec.value ? ` ${spec.value}` : ''}`, spec.description] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n');
}

/** What every exit code means, for `--help`. */
function exitCodesText(): string[] {
  return ['Exit codes:', ...Object.entries(englishCliMessages.exitCodes).map(([code, meaning]) => `  ${code.padEnd(4)} ${meaning}`)];
}

const AGENTS_TEXT = [
  'Agents (--coder, --reviewer): an entry of the agent registry, or a built-in adapter:',
  "  claude   Claude Code   key: ANTHROPIC_API_KEY (or its login)   troupe looper --coder claude -p '…'",
  "  codex    Codex CLI     key: OPENAI_API_KEY (or its login)      troupe looper --coder codex -p '…'",
  "  gemini   Gemini CLI    key: GEMINI_API_KEY (+ GOOGLE_GEMINI_BASE_URL for another endpoint; no settings file needed)",
  "                                                                troupe looper --coder gemini -p '…'",
  'A registry entry (WORKSPACE/.troupe/agents.json, ~/.troupe/agents/config.json or --registry FILE) sets what the',
  'adapter supports: command, baseArgs, env, model, baseUrl, apiKeyEnv (the variable holding the key), home (a private',
  'home), maxRetries, capabilities.completionDetection (jsonl, idleTimeout with idleTimeoutMs, exit). For example:',
  '  {"schemaVersion":"1.2","agents":{"local-codex":{"name":"codex","command":"codex",',
  '    "baseArgs":["exec","--json","--skip-git-repo-check"],"model":"gpt-5.5","baseUrl":"http://127.0.0.1:8080/v1",',
  '    "apiKeyEnv":"MY_OPENAI_KEY","capabilities":{"supportsSystemPrompt":false,"completionDetection":"jsonl",',
  '    "completionTypes":["turn.completed","turn.failed"]}}}}',
  '  troupe looper --coder local-codex --reviewer tests -p \'{"type":"start","task":"…"}\'',
  '"troupe doctor" checks the registry and each entry.',
];

const LANGUAGE_TEXT = 'Language: --lang en|zh-CN, else LC_ALL / LC_MESSAGES / LANG (zh_CN.UTF-8 → Simplified Chinese); English by default.';

/** `--help` text of each command. */
export function helpText(command: string): string {
  switch (command) {
    case 'looper':
      return [
        'Usage: troupe looper -p COMMAND [--workspace DIR] [options]',
        '',
        'Runs the Looper on a workspace: Coder → Review → JUDGE iterations until JUDGE ends the run.',
        'When a troupe process already runs this workspace, the command goes to it and returns at once.',
        'Without -p, resumes a run that was interrupted (killed, crashed).',
        '',
        'Options:',
        formatOptions(LOOPER_OPTIONS),
        '',
        'Examples:',
        `  troupe looper -w ./app -p '{"type":"start","task":"Add a sum function in sum.js with tests"}'`,
        `  troupe looper -w ./app -p '{"type":"add_pending","task":"Add logging"}'   # from another terminal`,
        `  troupe looper -w ./app -p '{"type":"status"}'`,
        `  troupe looper -w ./app -p '{"type":"stop"}'              # ends after the current iteration (Review and JUDGE run)`,
        `  troupe looper -w ./app -p '{"type":"stop","now":true}'   # cancels the step in progress`,
        '',
        ...AGENTS_TEXT,
        '',
        LANGUAGE_TEXT,
        '',
        ...exitCodesText(),
      ].join('\n');
    case 'worker':
      return [
        'Usage: troupe worker --redis URL [--concurrency N] [--queues A,B] [options]',
        '',
        'Takes Looper jobs from the queue and runs each whole Looper here, streaming its progress back to',
        'whoever submitted it. Agents and API keys are this machine\'s (its env and agent registry): jobs carry',
        'none. A worker that dies mid-job leaves the job to another, which resumes it from its last checkpoint.',
        'Ctrl-C (or SIGTERM) finishes the jobs in progress; twice cancels them (they are retried elsewhere).',
        'Jobs work only inside the --allow-root folders (default: the --work-dir) and clone only https:// and',
        'ssh:// repositories (local ones with --allow-local-git); any other job fails at once.',
        '',
        'Options:',
        formatOptions(WORKER_OPTIONS),
        '',
        'Examples:',
        '  redis-server --appendonly yes --port 6379 &',
        '  troupe worker --redis redis://127.0.0.1:6379 --concurrency 2',
        '  troupe worker --redis redis://127.0.0.1:6379 --allow-root /shared/projects',
        '',
        ...exitCodesText(),
      ].join('\n');
    case 'submit':
      return [
        'Usage: troupe submit --redis URL -p TASK [--workspace DIR | --git URL] [--wait] [options]',
        '',
        'Sends a Looper run to the workers of the queue (see `troupe worker`) and prints its job id; with --wait,',
        'follows it: its [AUTO] progress streams back and the exit code is how the run ended.',
        'Control it later with: troupe looper --queue URL --job ID -p \'{"type":"status"}\' (or stop, add_pending).',
        '',
        'Options:',
        formatOptions(SUBMIT_OPTIONS),
        '',
        'Examples:',
        `  troupe submit --redis redis://127.0.0.1:6379 --git https://github.com/acme/app.git -p 'Add tests for the parser' --coder claude --reviewer tests`,
        `  troupe looper --queue redis://127.0.0.1:6379 -w /shared/app -p '{"type":"start","task":"Add a sum function"}'`,
        '',
        ...exitCodesText(),
      ].join('\n');
    case 'devhub':
      return [
        'Usage: troupe devhub -p TEXT [--workspace DIR] [options]',
        '',
        'Sends a message to DevHub, which answers or starts Looper runs (send_to_looper). Needs a model:',
        'set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model.',
        'Without -p: an interactive session (same as `troupe`).',
        '',
        'DevHub remembers the session: its conversation and the Looper\'s [AUTO] progress are saved in',
        'WORKSPACE/.troupe/ and given back to it in later invocations ("how is it going?").',
        '',
        'Options:',
        formatOptions(DEVHUB_OPTIONS),
        '',
        LANGUAGE_TEXT,
        '',
        ...exitCodesText(),
      ].join('\n');
    case 'team':
      return [
        'Usage: troupe team [--workspace DIR] [--config FILE] [-p TEXT] [--from MEMBER] [--to MEMBER]',
        '',
        'Runs the team described in .troupe/team.json (@troupe/team): AI members through their agents (a registry entry',
        'or claude, codex, gemini), in their workDir or else the workspace; human members answer with a line of stdin,',
        'typed at the prompt or piped ([NEXT: name] picks the next speaker, [DONE] from a human or /end ends it;',
        'when piped input runs out, the conversation ends).',
        '',
        'Options:',
        formatOptions(TEAM_OPTIONS),
        '',
        LANGUAGE_TEXT,
      ].join('\n');
    case 'dashboard':
      return [
        'Usage: troupe dashboard [--workspace DIR] [--port N] [--allowed-host A,B]',
        '',
        'Serves a live web dashboard of the workspace on 127.0.0.1 and prints its address, with a random access token',
        '(requests without it get 401; a foreign Host or a POST from another site gets 403): the Looper\'s state, iterations timeline, [AUTO] stream and pending tasks with',
        'add_pending and stop buttons, an orchestrator\'s agent tree, team conversations, pipeline batches as a Gantt chart,',
        'and tokens and cost per agent. It attaches to the troupe process running the workspace (through its control',
        'socket) and shows the saved session while none runs. Ctrl-C stops it.',
        '',
        'Options:',
        formatOptions(DASHBOARD_OPTIONS),
        '',
        LANGUAGE_TEXT,
      ].join('\n');
    case 'doctor':
      return [
        'Usage: troupe doctor [--json] [--registry FILE] [--workspace DIR]',
        '',
        'Shows which agent CLIs (claude, codex, gemini) are installed and their versions against the tested ones,',
        'where their credentials are (never the values), which model API keys are set, and what the demo will use;',
        'then validates the agent registry and reports each entry (adapter, command found, settings, problems).',
        'Exits 2 when the registry is invalid or one of its entries cannot be used, 0 otherwise.',
        '',
        'Options:',
        formatOptions(DOCTOR_OPTIONS),
      ].join('\n');
    case 'usage':
      return [
        'Usage: troupe usage [--workspace DIR] [--json]',
        '',
        'Prints the tokens and cost of every session of the workspace, from the usage ledger each troupe process',
        'saves with its session: totals, then per agent, per run (Looper run, team conversation, orchestrator',
        'tree, pipeline run) and per model. Costs are what the CLI reported (Claude Code), else the price of the',
        'model from the price table; turns of a model without a price are counted in tokens only.',
        '',
        'Options:',
        formatOptions(USAGE_OPTIONS),
      ].join('\n');
    case 'help':
      return [
        'Usage: troupe help [COMMAND]',
        '',
        'Shows the help of COMMAND (the same as "troupe COMMAND --help"), or of troupe itself without one.',
        `Commands: ${COMMANDS.map((entry) => entry.name).join(', ')}.`,
        '',
        'Options:',
        formatOptions(HELP_OPTIONS),
      ].join('\n');
    case 'migrate-registry':
      return [
        'Usage: troupe migrate-registry [PATH] [--dry-run]',
        '',
        'Converts an agent registry file from schema 1.1 to 1.2 in place, after writing a backup next to it.',
        'Reads 1.1 files with or without the "agents" wrapper (seed 001\'s example has none).',
        'Default PATH: ~/.troupe/agents/config.json.',
        '',
        'Options:',
        formatOptions(MIGRATE_OPTIONS),
      ].join('\n');
    default:
      return [
        'Usage: troupe [COMMAND] [options]',
        '',
        'Troupe runs coding-agent CLIs (Claude Code, Codex, Gemini) as a team on your workspace.',
        'Without a command: an interactive session with the Monitor/DevHub and Looper channels.',
        '',
        'Commands:',
        ...COMMANDS.map((entry) => `  ${entry.name.padEnd(18)}${entry.summary}`),
        '',
        'Options (interactive session):',
        formatOptions(ROOT_OPTIONS),
        '',
        'Run "troupe COMMAND --help" for a command\'s options.',
        '',
        LANGUAGE_TEXT,
        '',
        ...exitCodesText(),
      ].join('\n');
  }
}
