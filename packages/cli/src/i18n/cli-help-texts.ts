/**
 * The `--help` texts of `troupe` and its commands in English: each command's
 * usage line, what it does, its examples, one description per option, and
 * the sections several commands share (agents, language). Which sections a
 * command's help has, and in what order, is `args/cli-help-text.ts`'s; which
 * options a command accepts is `args/cli-command-options.ts`'s. The Simplified
 * Chinese texts (`cli-help-texts-zh-cn.ts`) implement the same
 * {@link CliHelpTexts}.
 */
export const englishCliHelpTexts = {
  headings: {
    options: 'Options:',
    rootOptions: 'Options (interactive session):',
    examples: 'Examples:',
    commands: 'Commands:',
    exitCodes: 'Exit codes:',
  },
  commandHelp: 'Run "troupe COMMAND --help" for a command\'s options.',
  language: 'Language: --lang en|zh-CN, else LC_ALL / LC_MESSAGES / LANG (zh_CN.UTF-8 → Simplified Chinese); English by default.',
  agents: [
    'Agents (--coder, --reviewer): an entry of the agent registry, or a built-in adapter:',
    "  claude   Claude Code   key: ANTHROPIC_API_KEY (or its login)   troupe looper --coder claude -p '…'",
    "  codex    Codex CLI     key: OPENAI_API_KEY (or its login)      troupe looper --coder codex -p '…'",
    '  gemini   Gemini CLI    key: GEMINI_API_KEY (+ GOOGLE_GEMINI_BASE_URL for another endpoint; no settings file needed)',
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
  ],
  /** One line per command in `troupe --help`. */
  summaries: {
    looper: 'Run the Looper (Coder → Review → JUDGE) on a workspace, or control the one running there.',
    devhub: 'Ask DevHub (a model that answers and starts Looper runs).',
    team: 'Run the team in .troupe/team.json.',
    'best-of-n': 'Give one task to N agents at once, each in its own git workspace, and keep the best attempt.',
    dashboard: 'Serve a live web dashboard of a workspace (Looper, agents, team, pipeline, usage) on 127.0.0.1.',
    doctor: 'Show installed agent CLIs and versions, API keys, and what the demo will use.',
    worker: 'Run Looper jobs from a BullMQ/Redis queue on this machine (scale out).',
    submit: 'Send a Looper run to the workers of a queue.',
    'migrate-registry': 'Migrate an agent registry file from schema 1.1 to 1.2 (keeps a backup).',
    usage: 'Show the tokens and cost of the sessions of a workspace (per agent, run and model).',
    workspaces: 'List the isolated git workspaces of a repository, or remove the leftovers of killed processes (gc).',
    eval: 'Run an eval: a task suite for each agent and mode; pass rates with 95% intervals, and JSON, Markdown and HTML reports.',
    approvals: 'List the tool calls waiting for an approval (deferred by a permission callback).',
    approve: 'Allow a deferred tool call, from any process; the agent runs it (once).',
    deny: 'Refuse a deferred tool call, from any process; the agent is told the reason.',
    help: 'Show help for a command.',
  },
  /** The usage line and the description of each command (`troupe` itself: the interactive session). */
  commands: {
    troupe: {
      usage: 'Usage: troupe [COMMAND] [options]',
      about: [
        'Troupe runs coding-agent CLIs (Claude Code, Codex, Gemini) as a team on your workspace.',
        'Without a command: an interactive session with the Monitor/DevHub and Looper channels.',
      ],
    },
    looper: {
      usage: 'Usage: troupe looper -p COMMAND [--workspace DIR] [options]',
      about: [
        'Runs the Looper on a workspace: Coder → Review → JUDGE iterations until JUDGE ends the run.',
        'When a troupe process already runs this workspace, the command goes to it and returns at once.',
        'Without -p, resumes a run that was interrupted (killed, crashed).',
      ],
      examples: [
        `  troupe looper -w ./app -p '{"type":"start","task":"Add a sum function in sum.js with tests"}'`,
        `  troupe looper -w ./app -p '{"type":"add_pending","task":"Add logging"}'   # from another terminal`,
        `  troupe looper -w ./app -p '{"type":"status"}'`,
        `  troupe looper -w ./app -p '{"type":"stop"}'              # ends after the current iteration (Review and JUDGE run)`,
        `  troupe looper -w ./app -p '{"type":"stop","now":true}'   # cancels the step in progress`,
        `  troupe looper -w ./app --isolate worktree -p 'Add a sum function'   # works on branch troupe/looper-run-N`,
        `  troupe looper -w ./app -p '{"type":"merge"}'             # merges that branch into the branch you were on`,
      ],
    },
    worker: {
      usage: 'Usage: troupe worker --redis URL [--concurrency N] [--queues A,B] [options]',
      about: [
        'Takes Looper jobs from the queue and runs each whole Looper here, streaming its progress back to',
        "whoever submitted it. Agents and API keys are this machine's (its env and agent registry): jobs carry",
        'none. A worker that dies mid-job leaves the job to another, which resumes it from its last checkpoint.',
        'Ctrl-C (or SIGTERM) finishes the jobs in progress; twice cancels them (they are retried elsewhere).',
        'Jobs work only inside the --allow-root folders (default: the --work-dir) and clone only https:// and',
        'ssh:// repositories (local ones with --allow-local-git); any other job fails at once.',
      ],
      examples: [
        '  redis-server --appendonly yes --port 6379 &',
        '  troupe worker --redis redis://127.0.0.1:6379 --concurrency 2',
        '  troupe worker --redis redis://127.0.0.1:6379 --allow-root /shared/projects',
      ],
    },
    submit: {
      usage: 'Usage: troupe submit --redis URL -p TASK [--workspace DIR | --git URL] [--wait] [options]',
      about: [
        'Sends a Looper run to the workers of the queue (see `troupe worker`) and prints its job id; with --wait,',
        'follows it: its [AUTO] progress streams back and the exit code is how the run ended.',
        'Control it later with: troupe looper --queue URL --job ID -p \'{"type":"status"}\' (or stop, add_pending).',
      ],
      examples: [
        `  troupe submit --redis redis://127.0.0.1:6379 --git https://github.com/acme/app.git -p 'Add tests for the parser' --coder claude --reviewer tests`,
        `  troupe looper --queue redis://127.0.0.1:6379 -w /shared/app -p '{"type":"start","task":"Add a sum function"}'`,
      ],
    },
    devhub: {
      usage: 'Usage: troupe devhub -p TEXT [--workspace DIR] [options]',
      about: [
        'Sends a message to DevHub, which answers or starts Looper runs (send_to_looper). Needs a model:',
        'set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model.',
        'Without -p: an interactive session (same as `troupe`).',
        '',
        "DevHub remembers the session: its conversation and the Looper's [AUTO] progress are saved in",
        'WORKSPACE/.troupe/ and given back to it in later invocations ("how is it going?").',
      ],
    },
    team: {
      usage: 'Usage: troupe team [--workspace DIR] [--config FILE] [-p TEXT] [--from MEMBER] [--to MEMBER]',
      about: [
        'Runs the team described in .troupe/team.json (@troupe/team): AI members through their agents (a registry entry',
        'or claude, codex, gemini), in their workDir or else the workspace; human members answer with a line of stdin,',
        'typed at the prompt or piped ([NEXT: name] picks the next speaker, [DONE] from a human or /end ends it;',
        'when piped input runs out, the conversation ends).',
      ],
    },
    'best-of-n': {
      usage: 'Usage: troupe best-of-n --task TEXT --attempts AGENT:N,… [--select tests|judge] [--test-cmd COMMAND] [--first-pass]',
      about: [
        'Runs one task as N attempts (@troupe/best-of-n): each attempt is one turn of its agent in its own git workspace',
        '(a worktree of --workspace on branch troupe/NAME), at most --concurrency at once. --select tests runs --test-cmd',
        '(through sh -c) in each finished workspace and keeps the passing attempt with the smallest diff (then the lowest',
        'cost); --select judge asks a model (--model) to compare the diffs and name one, with reasons. --first-pass stops',
        'the others as soon as one attempt passes. Prints a scorecard line per attempt (status, tokens, cost, time, diff)',
        "and the winner's branch, kept for you to merge; the other workspaces and branches are removed.",
      ],
      examples: [
        `  troupe best-of-n --task "Fix the failing test in src/dates.ts" --attempts claude:2,codex:2 --select tests --test-cmd "npm test"`,
        `  troupe best-of-n -p "Add a --json flag" --attempts claude,codex,gemini --test-cmd "npm test" --first-pass --max-cost 3`,
        `  troupe best-of-n -p "Refactor the parser" --attempts claude:3 --select judge --model anthropic`,
      ],
    },
    dashboard: {
      usage: 'Usage: troupe dashboard [--workspace DIR] [--port N] [--allowed-host A,B]',
      about: [
        'Serves a live web dashboard of the workspace on 127.0.0.1 and prints its address, with a random access token',
        "(requests without it get 401; a foreign Host or a POST from another site gets 403): the Looper's state, iterations timeline, [AUTO] stream and pending tasks with",
        "add_pending and stop buttons, an orchestrator's agent tree, team conversations, pipeline batches as a Gantt chart,",
        'and tokens and cost per agent. It attaches to the troupe process running the workspace (through its control',
        'socket) and shows the saved session while none runs. Ctrl-C stops it.',
      ],
    },
    doctor: {
      usage: 'Usage: troupe doctor [--json] [--registry FILE] [--workspace DIR]',
      about: [
        'Shows which agent CLIs (claude, codex, gemini) are installed and their versions against the tested ones,',
        'where their credentials are (never the values), which model API keys are set, and what the demo will use;',
        'then validates the agent registry and reports each entry (adapter, command found, settings, problems).',
        'Exits 2 when the registry is invalid or one of its entries cannot be used, 0 otherwise.',
      ],
    },
    usage: {
      usage: 'Usage: troupe usage [--workspace DIR] [--json]',
      about: [
        'Prints the tokens and cost of every session of the workspace, from the usage ledger each troupe process',
        'saves with its session: totals, then per agent, per run (Looper run, team conversation, orchestrator',
        'tree, pipeline run) and per model. Costs are what the CLI reported (Claude Code), else the price of the',
        'model from the price table; turns of a model without a price are counted in tokens only.',
      ],
    },
    eval: {
      usage: 'Usage: troupe eval --suite DIR [--agents A,B] [--modes A,B] [--trials N] [--attempts N] [--rounds N] [--concurrency N] [--out DIR]',
      about: [
        'Runs every task of the suite (one folder per task: task.json, files/, hidden/) for each agent and mode,',
        'each trial in its own git workspace, graded by the task\'s grading command once its hidden tests are copied in.',
        'Writes report.json, report.md and report.html to the --out folder and prints the Markdown summary. Trials are',
        'kept in OUT/eval.db as they end: run the same command again to resume an interrupted eval.',
      ],
    },
    workspaces: {
      usage: 'Usage: troupe workspaces list|gc [--repo DIR] [--spares]',
      about: [
        'The isolated workspaces (git worktrees in REPO/.troupe/workspaces/, each on a branch troupe/NAME) that',
        '`troupe looper --isolate worktree` and other Troupe runs make. list: each with its branch, age and whether',
        'the process that made it is still running. gc: removes the workspaces of processes that are gone (killed,',
        'crashed) when they hold no commits and no changes, keeps the others, and says which and why. With',
        '`git config troupe.workspaceSpares N`, removed workspaces leave up to N folders to reuse (creation then',
        'rewrites only what changed); gc --spares deletes them. Exit code 0.',
      ],
    },
    approvals: {
      usage: 'Usage: troupe approvals [--workspace DIR | --store FILE] [--json]',
      about: [
        'Lists the tool calls a permission callback deferred (`defer` with deferTo(store)) and that wait for a decision:',
        'id, agent, tool and kind, what it acts on, how long it has waited, and why it was deferred. The store is the',
        "workspace's (DIR/.troupe/troupe.db) unless --store names another SQLite file. Decide with troupe approve or deny.",
      ],
    },
    approve: {
      usage: 'Usage: troupe approve ID [--reason TEXT] [--by NAME] [--workspace DIR | --store FILE]',
      about: [
        'Allows the deferred tool call ID. The waiting agent runs it; if its process died, the call runs once when the',
        'session resumes. The decision is kept as an audit record (who, when, tool, input hash, reason).',
        'Exits 1 when no pending approval has that id (or it was decided already).',
      ],
    },
    deny: {
      usage: 'Usage: troupe deny ID --reason TEXT [--by NAME] [--workspace DIR | --store FILE]',
      about: ['Refuses the deferred tool call ID; the agent is told the reason. The decision is kept as an audit record.', 'Exits 1 when no pending approval has that id (or it was decided already).'],
    },
    help: {
      usage: 'Usage: troupe help [COMMAND]',
      about: ['Shows the help of COMMAND (the same as "troupe COMMAND --help"), or of troupe itself without one.'],
    },
    'migrate-registry': {
      usage: 'Usage: troupe migrate-registry [PATH] [--dry-run]',
      about: [
        'Converts an agent registry file from schema 1.1 to 1.2 in place, after writing a backup next to it.',
        'Reads 1.1 files with or without the "agents" wrapper (seed 001\'s example has none).',
        'Default PATH: ~/.troupe/agents/config.json.',
      ],
    },
  },
  /** `troupe help --help`: the commands it knows. */
  helpCommands: (names: readonly string[]) => `Commands: ${names.join(', ')}.`,
  /** The description of each option, by the key its option table gives it (`args/cli-command-options.ts`). */
  options: {
    help: 'Show this help.',
    version: 'Print the version.',
    workspace: 'The project folder the agents work in; state goes in DIR/.troupe/. Default: the current folder.',
    newSession: 'Start a fresh session (Looper state, pending tasks and messages) instead of resuming the previous one.',
    autoAllow: 'Let agent CLIs edit files and run commands without asking (full-auto). Default: file edits only.',
    mcp: 'MCP servers for the agent CLIs, from a .mcp.json-style file ({"mcpServers": {"name": {"command": …} | {"type": "http", "url": …}}}; ${VAR} expanded).',
    policy: 'Tool policy (JSON: allow/ask/deny rules) every agent CLI is held to: Claude Code, Codex and ACP agents decide each tool call with it; calls it leaves open follow --auto-allow (else reads and edits only). A malformed file is refused, naming the rule.',
    registry: 'Agent registry (schema 1.2; 1.1 is read with a warning). Default: WORKSPACE/.troupe/agents.json, else ~/.troupe/agents/config.json.',
    coder: 'Coder agent: an entry of the agent registry, or claude, codex or gemini. Default: claude.',
    reviewer: "Review agent: a registry entry, claude, codex, gemini, or tests (runs the test command and reports health from the results). Default: the Coder's agent.",
    model: 'Model for DevHub and JUDGE: anthropic, openai or gemini, optionally :MODEL. Default: TROUPE_MODEL, else the first provider whose API key is set.',
    judge: 'JUDGE: the rule policy, or the model. Default: the model when one is configured, else the rules.',
    maxIterations: 'Iterations per run. Default: 5.',
    testCommand: 'The tests reviewer\'s command. Default: "node --test".',
    devhubMaxIterations: 'Iterations per Looper run. Default: 5.',
    devhubStepTimeout: 'Time limit of each Looper step.',
    devhubPrompt: 'What to ask DevHub. Without -p: an interactive session on the DevHub channel.',
    looperPrompt:
      'A Looper command as JSON ({"type":"start","task":"…"}, {"type":"status"}, {"type":"add_pending","task":"…"}, {"type":"stop"}, {"type":"merge"}) or plain text (= start that task).',
    looperTestCommand: 'The tests reviewer\'s command, split on spaces (no shell). Default: "node --test".',
    looperStepTimeout: 'Time limit of each Coder, Review and JUDGE step. Default: 15 min / 10 min / 2 min.',
    looperAttempts:
      'Make the Coder step a best-of-N: each Coder task runs as these attempts (e.g. claude:2,codex:2), each in a git workspace of its own; the one whose --test-command passes with the smallest diff is applied to the workspace. Instead of --coder.',
    looperQueue: 'Run on the workers of this BullMQ/Redis queue (see `troupe worker`) instead of here; progress streams back. With --job, control that job.',
    looperIsolate:
      'worktree: the run works in its own git workspace on a branch troupe/looper-run-N made from your HEAD; your checkout is not touched. At the end: the branch, diffstat and diff. Default: none.',
    looperMerge: 'With --isolate worktree: merge the branch into the one you were on when the run ends (merge, rebase or squash).',
    workspacesRepo: 'The git checkout whose workspaces to list or clean up. Default: the current folder.',
    workspacesSpares: 'gc only: also delete the spare folders kept for reuse (git config troupe.workspaceSpares N).',
    looperJob: 'With --queue: the queued job a status, stop or add_pending command is for.',
    git: 'With --queue / submit: a git repository each worker clones, instead of --workspace (a folder the workers can reach).',
    doctorJson: 'Print the report as JSON.',
    doctorWorkspace: 'Look for the agent registry in DIR/.troupe/agents.json first. Default: the current folder.',
    dryRun: 'Show what would change without writing anything.',
    teamPrompt: "The message that starts the team's conversation.",
    bestOfNTask: 'The task every attempt is given.',
    bestOfNAttempts: 'The agents and how many attempts each makes, e.g. claude:2,codex:2 (AGENT alone: one attempt).',
    bestOfNSelect: 'How the winner is chosen: tests (the passing attempt with the smallest diff) or judge (a model, or an agent with --judge-agent). Default: tests.',
    bestOfNTestCmd: 'The test command run in each finished workspace (through sh -c); exit 0 passes.',
    bestOfNFirstPass: 'Stop the other attempts as soon as one passes (their processes killed, their workspaces removed).',
    bestOfNConcurrency: 'Attempts that run at once. Default: 4.',
    bestOfNMaxCost: 'A budget in US dollars for all attempts together: once spent, no attempt starts and running ones stop.',
    bestOfNJudgeAgent: 'With --select judge: a coding agent as the judge (claude, codex, gemini or a registry entry), asked for its pick as a typed result.',
    bestOfNModel: 'With --select judge: the judge model (PROVIDER[:MODEL]). Default: TROUPE_MODEL, else the provider whose key is set.',
    bestOfNWorkspace: 'The git checkout the attempts work on (each in a workspace of its own). Default: the current folder.',
    bestOfNQueue:
      "Run the attempts' agent turns on the workers of this BullMQ/Redis queue (troupe-best-of-n; see `troupe worker --queues troupe-best-of-n`); each change comes back into its workspace here, where it is tested and selected.",
    bestOfNGit: 'With --queue: the git repository the workers clone (it must hold the checkout\'s HEAD). Default: the checkout\'s folder (workers on this machine, with --allow-root).',
    teamConfig: 'Team file. Default: WORKSPACE/.troupe/team.json.',
    teamFrom: 'Member (id or name) who says the first message, e.g. you at the terminal.',
    teamTo: 'Member (id or name) who speaks first.',
    teamIsolate:
      "worktree: each AI member works in a git worktree of its own (branch troupe/<name>, from the workspace's HEAD) and its diff is printed at the end; none: in the workspace. Members that set isolation keep theirs.",
    usageWorkspace: 'The workspace whose sessions to report. Default: the current folder.',
    approvalsWorkspace: 'The workspace whose approvals to read (DIR/.troupe/troupe.db). Default: the current folder.',
    approvalsStore: 'A SQLite store file to use instead of the workspace\'s (the one the host process defers to).',
    approvalsJson: 'Print the pending approvals as JSON (without their inputs).',
    approveReason: 'Why it is allowed (kept in the audit record).',
    denyReason: 'Why it is refused: what the agent is told. Required.',
    approvalBy: 'Who decides, for the audit record. Default: cli:USER (the login name).',
    usageJson: 'Print the totals as JSON (per session: totals, byAgent, byRun, byModel).',
    evalSuite: 'The task suite folder (e.g. packages/eval/suites/starter). Required.',
    evalAgents: 'The agents to compare, by name (claude, codex, gemini, acp:…). Default: claude.',
    evalModes: 'How each agent attempts a task: single (one turn), looper (Coder → Review → JUDGE), best-of-n (N attempts, one graded). Default: single.',
    evalTrials: 'Trials per task, agent and mode. Default: 1.',
    evalAttempts: 'Attempts per trial of the best-of-n mode. Default: 2.',
    evalRounds: 'Most Coder → Review → JUDGE rounds per trial of the looper mode. Default: 3.',
    evalConcurrency: 'Trials at once. Default: 1.',
    evalOut: 'Where the reports and the trial store go. Default: ./eval-report.',
    evalQueue: 'Run the trials on queue workers (troupe worker --queues troupe-eval) through this Redis; --concurrency then caps the trials queued at once (default: all).',
    workerRedis: 'The Redis server of the queue (redis://[user:password@]host:port[/db]).',
    workerConcurrency: 'Jobs run at once on this worker, per queue. Default: 1.',
    workerQueues:
      'Queues to serve. Default: troupe-looper. Names ending in -pipeline run pipeline tasks (a --coder turn each), in -agents orchestrator sub-agents (on --model), in -eval eval trials (troupe eval --queue), in -best-of-n best-of-N attempts (troupe best-of-n --queue); others Looper runs.',
    workerCoder: 'The agent CLI of pipeline tasks. Default: claude.',
    workerWorkspace: 'Where pipeline tasks run. Default: the current folder.',
    workerWorkDir: 'Where git workspaces are cloned. Default: a troupe-worker folder in the temp folder.',
    workerAllowRoot:
      'A folder jobs may work in (their --workspace, or a local --git repository); repeat it for more. Jobs naming any other folder fail. Default: the --work-dir only.',
    workerAllowLocalGit: "Accept local repositories (file:// or a path, inside an --allow-root) as a job's --git. Default: only https:// and ssh:// (user@host:path).",
    workerCloneTimeout: "Time limit of a job's git clone; git is then killed and the attempt fails. Default: 600.",
    submitRedis: 'The Redis server of the queue.',
    submitPrompt: 'The task of the Looper run.',
    submitWorkspace: 'A project folder the workers can reach (shared disk). Default: the current folder.',
    submitRef: 'With --git: the branch or tag to clone.',
    submitCoder: 'Coder agent, resolved on the worker (its registry and keys). Default: claude.',
    submitReviewer: "Review agent on the worker, or tests. Default: the Coder's agent.",
    submitJudge: 'JUDGE: the rule policy, or a model the worker has the key for. Default: rules.',
    submitStepTimeout: 'Time limit of each step.',
    submitAttempts: 'Attempts if a worker fails or dies (retried from the last checkpoint, with backoff). Default: 3.',
    submitWait: 'Follow the run: print its progress as it streams back, exit with how it ended.',
    submitIsolate:
      "worktree: the worker runs the job in its own git worktree and branch, from this checkout's HEAD, and sends the change back; with --wait it is fetched here as branch troupe/job-<id> (your checkout is not touched).",
    submitNoApply: 'With --isolate worktree --wait: print the branch and diffstat, but do not create the branch here.',
    dashboardWorkspace: 'The workspace to watch (its saved session, and the troupe process running it). Default: the current folder.',
    dashboardPort: 'Port on 127.0.0.1. Default: a random free port.',
    dashboardAllowedHost:
      "Host names the page may also be opened under (name or name:port), e.g. an SSH tunnel's localhost:8080 or a proxy's name. Default: 127.0.0.1, localhost and [::1] on the dashboard's port; any other Host gets 403.",
    dashboardQueue: 'Also show the jobs of the BullMQ queues on this Redis (waiting, active, done, failed), see `troupe worker`.',
    dashboardQueues: 'With --queue: the queues to show. Default: troupe-looper, troupe-pipeline, troupe-agents.',
  },
};

/** The `--help` texts in one language (see {@link englishCliHelpTexts}). */
export type CliHelpTexts = typeof englishCliHelpTexts;

/** A help page: `troupe` itself or one of its commands. */
export type CliHelpTopic = keyof CliHelpTexts['commands'];

/** The key of an option's description in {@link CliHelpTexts.options}. */
export type CliOptionHelpKey = keyof CliHelpTexts['options'];
