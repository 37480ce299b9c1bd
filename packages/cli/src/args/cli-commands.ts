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

/** Options of `troupe dashboard`. */
export const DASHBOARD_OPTIONS: readonly CliOptionSpec[] = [
  { name: 'workspace', short: 'w', type: 'string', value: 'DIR', description: 'The workspace to watch (its saved session, and the troupe process running it). Default: the current folder.' },
  { name: 'port', type: 'string', value: 'N', description: 'Port on 127.0.0.1. Default: a random free port.' },
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
  { name: 'migrate-registry', summary: 'Migrate an agent registry file from schema 1.1 to 1.2 (keeps a backup).' },
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
        'Usage: troupe dashboard [--workspace DIR] [--port N]',
        '',
        'Serves a live web dashboard of the workspace on 127.0.0.1 and prints its address, with a random access token',
        '(requests without it get 401): the Looper\'s state, iterations timeline, [AUTO] stream and pending tasks with',
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
