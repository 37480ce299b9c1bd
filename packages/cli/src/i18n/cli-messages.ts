import type { GcKeptReason } from '@troupe/worktree';

/**
 * The `troupe` command line's own texts in English: usage errors, banners,
 * notes, progress lines, the interactive session and the exit-code
 * explanations. The Simplified Chinese ones (`cli-messages-zh-cn.ts`)
 * implement the same {@link CliMessages}; `cli-catalogue.ts` bundles each with
 * the Looper's and DevHub's texts into one catalogue per language.
 */
export const englishCliMessages = {
  locale: 'en',
  usage: {
    hint: (command: string) => `run "troupe ${command === 'troupe' ? '' : `${command} `}--help" for usage`,
    unknownCommand: (name: string, suggestion: string | undefined, commands: readonly string[]) =>
      `unknown command "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; commands: ${commands.join(', ')}; run "troupe --help"`,
    unknownOption: (option: string, commandLabel: string, suggestion: string | undefined) =>
      `unknown option ${option} for "${commandLabel}"${suggestion ? ` (did you mean --${suggestion}?)` : ''}`,
    takesNoValue: (name: string) => `option --${name} takes no value`,
    needsValue: (option: string, placeholder: string) => `option ${option} needs a value (${placeholder})`,
    givenTwice: (name: string) => `option --${name} given twice`,
    positiveInteger: (name: string, value: unknown) => `option --${name} expects a positive whole number, got ${JSON.stringify(value)}`,
    choice: (name: string, choices: readonly string[], value: unknown) => `option --${name} expects one of ${choices.join(', ')}, got ${JSON.stringify(value)}`,
    agent: (option: string, entries: readonly string[], builtIns: readonly string[], value: string, registryPath: string | undefined) =>
      `option ${option} expects ${entries.length > 0 ? `an entry of the agent registry ${registryPath} (${entries.join(', ')}) or ` : ''}one of ${builtIns.join(', ')}, got ${JSON.stringify(value)}`,
    unexpectedArgument: (arg: string) => `unexpected argument ${JSON.stringify(arg)}`,
    passWithP: (what: 'command' | 'message') => `pass the ${what === 'command' ? 'Looper command' : 'message'} with -p (quote it)`,
    invalidLooperCommand: (error: string) => `invalid -p command: ${error}`,
    emptyMessage: 'the -p message is empty',
    lang: (value: string) => `--lang expects en or zh-CN, got ${JSON.stringify(value)}`,
    model: (providers: readonly string[], value: string) =>
      `--model expects ${providers.join(', ')} optionally followed by :MODEL (e.g. anthropic:claude-sonnet-5-5), got ${JSON.stringify(value)}`,
    judgeNeedsModel: '--judge model needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model',
    testCommandEmpty: '--test-command must not be empty',
    atMostOnePath: (count: number) => `expected at most one registry path, got ${count}`,
    fileMissing: (what: string, path: string) => `${what} ${path} does not exist`,
    busyTimeout: (value: string) => `TROUPE_DB_BUSY_TIMEOUT_MS must be a whole number of milliseconds, got ${JSON.stringify(value)}`,
  },
  workspace: {
    missing: (root: string) => `workspace ${root} does not exist; create it first or pass an existing folder to --workspace`,
    notFolder: (root: string) => `workspace ${root} is not a folder`,
    troupeNotFolder: (dir: string) => `cannot use ${dir}: it exists and is not a folder; remove or rename it`,
    cannotWrite: (dir: string, code: string) => `cannot write to ${dir} (${code}); check the folder's permissions`,
    cannotOpen: (root: string) => `cannot open the session of ${root}`,
    databaseLocked: 'the session database is locked',
    databaseUnusable: 'the session database cannot be used',
    taken: (pid: number) => `another troupe process (pid ${pid}) runs this workspace; retry to send it your command`,
    notAnswering: (pid: number, socket: string, detail: string) =>
      `a troupe process (pid ${pid}) holds this workspace but does not answer on ${socket} (${detail}); if it is stuck, stop it (kill ${pid}) and retry`,
    newSessionIgnored: (pid: number, then: 'command' | 'message' | 'attach') =>
      `note: --newsession ignored: a troupe process (pid ${pid}) is running this workspace's session; ${
        then === 'command' ? 'the command goes to it' : then === 'message' ? 'the message goes to its DevHub' : 'attaching to it'
      }`,
  },
  config: {
    /** First line of a configuration error; the issues follow, one per line. */
    invalid: (source: string) => `invalid configuration in ${source}:`,
    warning: (text: string) => `warning: ${text}`,
    registryUsed: (path: string) => `agent registry: ${path}`,
  },
  looper: {
    banner: (root: string, summary: string) => `troupe looper · ${root} · ${summary}`,
    summary: (coder: string, review: string, judge: string, autoAllow: boolean) => `Coder: ${coder} · Review: ${review} · JUDGE: ${judge}${autoAllow ? ' · auto-allow' : ''}`,
    reviewTests: (command: string) => `tests (${command})`,
    judgeModel: (model: string) => `model ${model}`,
    judgeRules: 'rule policy',
    nothingToResume: (root: string, status: string) =>
      `Nothing to resume in ${root}.\n${status}\nStart a run with: troupe looper --workspace ${root} -p '{"type":"start","task":"…"}'`,
    runnerNote: (pid: number) => `(A troupe process, pid ${pid}, is running this workspace; send it commands with -p.)`,
    cliMissing: (role: string, command: string, displayName: string, installHint: string, option: string) =>
      `the ${role} CLI "${command}" (${displayName}) is not installed: ${installHint}, or choose another with ${option} (see troupe doctor)`,
    cannotResume: (detail: string) => `cannot resume the session's Looper: ${detail}; start over with --newsession`,
    resumeHint: (root: string) => `run "troupe looper --workspace ${root}" to resume it, or start over with --newsession`,
    interruptedNote: (iteration: number, step: string | null, hint: string) =>
      `Interrupted: no troupe process is running this loop (it stopped at iteration ${iteration}, step ${step}); ${hint}.`,
    queuedForResume: (count: number, task: string, hint: string) => `Task queued (pending: ${count}): ${task}. The interrupted run takes it up when it resumes (${hint}).`,
    stoppedInterruptedReason: (iteration: number, step: string | null) =>
      `Stopped on request while interrupted (no process was running it) at iteration ${iteration}, step ${step}.`,
    stoppedInterrupted: (reason: string) => `Stopped the interrupted run: ${reason}`,
    interrupted: (signal: string) => `Interrupted (${signal}): stopping the agents; the run is saved and resumes with the next \`troupe looper\` on this workspace.`,
    stepLine: (elapsed: string, iteration: number, maxIterations: number, step: string) => `[${elapsed}] Iteration ${iteration}/${maxIterations}: ${step} step…`,
    spinner: (iteration: number, maxIterations: number, step: string, stepElapsed: string, total: string) =>
      `Iteration ${iteration}/${maxIterations} · ${step} · step ${stepElapsed} · total ${total}`,
    /** Printed last when a run ends with a code other than 0, so the exit code is never a mystery. */
    exitLine: (code: number, meaning: string) => `Exit code ${code}: ${meaning}`,
    mergeNeedsIsolate: '--merge needs --isolate worktree (the run must work on a branch of its own)',
    attemptsOrCoder: 'give the Coder as --coder AGENT or as best-of-N attempts with --attempts AGENT:N,…, not both',
    coderAttempts: (attempts: string) => `best-of-N ${attempts}`,
    notARepository: (root: string, detail: string) => `--isolate worktree needs a git checkout: ${root} is not one (${detail})`,
    workspaceDiff: (branch: string, base: string) => `Diff of ${branch} against ${base}:`,
    diffCut: (shown: number, total: number) => `… (${total - shown} more characters of the diff; see it with git diff)`,
    mergeHint: (root: string, branch: string) =>
      `Merge it with: troupe looper -w ${root} -p '{"type":"merge"}' (or add "strategy":"squash"|"rebase", "into":"BRANCH"), or git merge ${branch}`,
  },
  eval: {
    needsSuite: 'expected --suite DIR (a folder with one folder per task)',
    taskError: (task: string, field: string, message: string) => `task ${task} not loaded: ${field}: ${message}`,
    trial: (task: string, configuration: string, trial: number, status: string, seconds: string) => `${task}  ${configuration}  #${trial}  ${status}  ${seconds} s`,
    wrote: (folder: string) => `Reports written to ${folder} (report.json, report.md, report.html).`,
  },
  workspaces: {
    removed: (name: string, branch: string) => `removed ${name} (${branch}): its process is gone and it held no commits and no changes`,
    kept: (name: string, branch: string, reason: GcKeptReason, pid: number) =>
      `kept ${name} (${branch}): ${
        reason === 'host-running'
          ? `its process (pid ${pid}) is running`
          : reason === 'other-machine'
            ? `it was made on another machine (pid ${pid} there cannot be checked from here)`
            : reason === 'has-commits'
              ? 'it holds commits'
              : 'it holds uncommitted changes'
      }`,
    gcNone: (repo: string) => `No leftover workspaces in ${repo}.`,
    gcSummary: (removed: number, kept: number) => `Workspaces: ${removed} removed, ${kept} kept.`,
    sparesDeleted: (count: number) => `Spare folders: ${count} deleted.`,
    sparesGcOnly: '--spares applies to gc only (it deletes the spare folders kept for reuse)',
    listNone: (repo: string) => `No workspaces in ${repo}.`,
    listLine: (name: string, branch: string, age: string, alive: boolean, pid: number) =>
      `${name}  ${branch}  ${age} old  ${alive ? `host pid ${pid} running` : `host pid ${pid} gone`}`,
    needsSubcommand: 'expected a subcommand: list or gc',
    unknownSubcommand: (name: string) => `unknown subcommand "${name}"; expected list or gc`,
    notARepository: (repo: string, detail: string) => `${repo} is not a git checkout (${detail})`,
  },
  approvals: {
    storeOrWorkspace: 'give --store FILE or --workspace DIR, not both',
    none: (store: string) => `No tool call is waiting for an approval in ${store}.`,
    header: (count: number, store: string) => `${count} tool call${count === 1 ? '' : 's'} waiting for an approval in ${store}:`,
    line: (id: string, agent: string, tool: string, kind: string, target: string | undefined, age: string) => `${id}  ${agent}  ${tool} (${kind})${target !== undefined ? `  ${target}` : ''}  waiting ${age}`,
    because: (reason: string) => `  deferred: ${reason}`,
    hint: 'Decide with: troupe approve ID [--reason TEXT]  or  troupe deny ID --reason TEXT',
    needsId: (command: string) => `expected the approval id: troupe ${command} ID`,
    needsReason: 'a denial needs --reason TEXT: it is what the agent is told',
    noStore: (path: string) => `no approval store at ${path} (no troupe process has deferred a call there)`,
    approved: (id: string, tool: string, by: string) => `Approved ${id} (${tool}) as ${by}.`,
    denied: (id: string, tool: string, by: string) => `Denied ${id} (${tool}) as ${by}.`,
  },
  devhub: {
    needsModel: 'DevHub needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model PROVIDER[:MODEL] (see troupe doctor)',
    runnerNeedsModel:
      'DevHub needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or pass --model) for the troupe process running this workspace',
    banner: (root: string, model: string, summary: string) => `troupe devhub · ${root} · DevHub: ${model} · ${summary}`,
    defaultModel: (provider: string) => `${provider} (default model)`,
  },
  interactive: {
    banner: (root: string, session: string, devhub: string, summary: string) => `troupe · ${root} · session ${session}\n${devhub} · ${summary}`,
    devhubModel: (model: string) => `DevHub: ${model}`,
    devhubNoModel: 'DevHub: no model',
    attached: (root: string, pid: number, session: string) => `troupe · ${root} · attached to pid ${pid} (session ${session})`,
    session: (session: string) => `Session ${session}. Type /help for commands.`,
    stillRunning: 'The loop is still running: it is saved and resumes with the next `troupe` or `troupe looper` on this workspace.',
    help: [
      'Channels: devhub (Monitor: talk to DevHub) and looper (Looper commands). Messages of both show as they arrive.',
      '  /devhub, /monitor   switch to the DevHub channel',
      '  /looper             switch to the Looper channel (plain text starts a task; JSON commands as with -p)',
      '  /switch, /s         switch to the other channel',
      "  /status             the Looper's status",
      '  /history [N]        the last N messages of this channel (default 20)',
      '  /quit, /exit        leave (a running loop stays resumable)',
    ].join('\n'),
    noModel: '(DevHub has no model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model. The looper channel works without one.)',
    noMessages: (channel: string) => `(no messages in ${channel} yet)`,
    switched: (channel: string) => `— switched to ${channel} —`,
    devhubUnavailable: 'DevHub has no model here (see /help); switch to the Looper with /looper.',
    ctrlC: '(Ctrl-C again, Ctrl-D or /quit to leave)',
    targetExited: 'The troupe process running this workspace has exited.',
    unknownCommand: (name: string) => `unknown command /${name}; type /help`,
    error: (message: string) => `error: ${message}`,
  },
  team: {
    ended: (reason: string, turns: number, detail: string) => `Conversation ended (${reason}) after ${turns} turn(s): ${detail}`,
    couldNotRun: (message: string) => `the team could not run: ${message}`,
    noMoreInput: (member: string) => `(no more input for ${member}: stdin is closed; ending the conversation)`,
    /** Printed on stderr when members' turns failed (the command then exits 1). */
    failedTurns: (count: number, members: string) => `${count} member turn${count === 1 ? '' : 's'} failed (${members}); exit code 1`,
    isolate: (value: string) => `--isolate expects "worktree" or "none", got "${value}"`,
    /** One isolated member's workspace at the end of the conversation. */
    workspace: (member: string, branch: string, files: number, insertions: number, deletions: number, path: string | undefined) =>
      path === undefined ? `${member}: no change (workspace ${branch} removed)` : `${member}: ${branch}, ${files} file(s) +${insertions} -${deletions}, kept at ${path}`,
    workspaceUnreadable: (member: string, message: string) => `${member}: its workspace could not be read: ${message}`,
  },
  bestOfN: {
    needsTask: 'give the task with --task TEXT (or -p TEXT)',
    needsAttempts: 'give the attempts with --attempts AGENT:N,… (e.g. claude:2,codex:2)',
    badAttempts: (value: string) => `option --attempts expects AGENT:N,… (e.g. claude:2,codex:2), got "${value}"`,
    needsTestCommand: '--select tests needs --test-cmd COMMAND (the test run in each workspace)',
    badMaxCost: (value: string) => `option --max-cost expects a number of US dollars > 0, got "${value}"`,
    judgeNeedsModel: '--select judge needs a judge: --judge-agent AGENT, or a model: --model PROVIDER[:MODEL], TROUPE_MODEL, or a provider API key',
    judgeAgentWithoutJudge: '--judge-agent needs --select judge',
    judgeAgentAndModel: 'give the judge as --judge-agent AGENT or --model PROVIDER[:MODEL], not both',
    gitNeedsQueue: '--git names the repository the queue workers clone: it needs --queue REDIS_URL',
    attempt: (id: string, status: string, tokens: number, cost: string, seconds: string, files: number, insertions: number, deletions: number) =>
      `${id}: ${status}, ${tokens} tokens, $${cost}, ${seconds} s, ${files} files +${insertions} -${deletions}`,
    stoppedBy: (why: 'firstPass' | 'budget'): string => (why === 'firstPass' ? 'An attempt passed: the others were stopped.' : 'The budget was reached: the remaining attempts were stopped.'),
    winner: (id: string, branch: string, path: string) => `Winner: ${id}, branch ${branch} (workspace ${path}); merge it with: git merge ${branch}`,
    reasons: (text: string) => `Judge: ${text}`,
    noWinner: (attempts: number) => `No winner: none of the ${attempts} attempts passed.`,
    couldNotRun: (message: string) => `best-of-n could not run: ${message}`,
  },
  dashboard: {
    serving: (url: string) => `Dashboard: ${url}\n(open it in a browser on this machine; Ctrl-C stops it)`,
    source: (root: string) => `workspace ${root}`,
    attached: (pid: number) => `runner pid ${pid}`,
    detached: 'no troupe process runs this workspace: showing the saved session; it attaches when one starts',
    noRunner: (root: string) => `no troupe process runs this workspace; start one (troupe looper --workspace ${root} -p '{"type":"start","task":"…"}') and the dashboard attaches to it`,
    stopped: 'Dashboard stopped.',
    port: (value: string) => `--port expects a port number (0-65535), got "${value}"`,
    allowedHost: (value: string) => `--allowed-host expects host names or name:port separated by commas (like localhost:8080,dash.example.com), got "${value}"`,
  },
  /** `troupe worker`, `troupe submit` and `troupe looper --queue`: the BullMQ/Redis queue. URLs arrive with their password masked. */
  queue: {
    redisRequired: (option: string) => `--${option} URL is required (e.g. --${option} redis://127.0.0.1:6379)`,
    redisUrl: (option: string, maskedUrl: string) => `--${option} expects a redis:// or rediss:// URL, got "${maskedUrl}"`,
    queuesEmpty: '--queues expects queue names separated by commas',
    queuesWithoutQueue: '--queues needs --queue REDIS_URL: the Redis whose queues to show',
    subAgentsNeedModel: 'a sub-agents queue needs a model on this worker: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model',
    workspaceOrGit: 'give either --workspace DIR or --git URL, not both',
    attemptsNotQueued: '--attempts is not sent to queue workers yet: run the Looper here (without --queue) for a best-of-N Coder',
    policyNotQueued: '--policy is not sent to queue workers yet: run the Looper here (without --queue) to hold its agents to a policy, or give the workers\' agents a policy in their registry',
    allowRootNotFolder: (dir: string) => `--allow-root ${dir} is not a folder`,
    gitUrlRefused: (maskedUrl: string) => `--git "${maskedUrl}": workers clone only https:// and ssh:// (user@host:path) URLs, or a local repository they allow`,
    taskRequired: '-p TASK is required: the task of the Looper run',
    commandRequired: 'with --queue, give a command with -p (a start, or status/stop/add_pending with --job ID)',
    jobRequired: (command: string) => `with --queue, ${command} needs --job ID (the id \`troupe submit\` printed)`,
    noJob: (jobId: string, queue: string) => `no job ${jobId} on ${queue}`,
    serving: (workerId: string, queues: readonly string[], maskedUrl: string, concurrency: number) =>
      `troupe worker ${workerId}: serving ${queues.join(', ')} on ${maskedUrl} (concurrency ${concurrency}). Ctrl-C to stop.`,
    finishing: (active: number) => `troupe worker: finishing ${active} job(s) in progress (again to cancel them; they are retried elsewhere)`,
    jobStarted: (jobId: string, resumed: boolean, workerId: string, attempt: number) =>
      `[queue] job ${jobId} ${resumed ? 'resumed' : 'started'} on ${workerId} (attempt ${attempt})`,
    /** `reason`: the failure in this language, with its code (see `withCode`). */
    jobAttemptFailed: (jobId: string, attempt: number, reason: string, willRetry: boolean) =>
      `[queue] job ${jobId} attempt ${attempt} failed: ${reason}${willRetry ? ' (will retry)' : ''}`,
    submitted: (jobId: string, queue: string) => `Submitted job ${jobId} to ${queue}.`,
    stopping: 'Stopping the run after the current iteration (Ctrl-C again cancels the job)…',
    ended: (jobId: string, outcome: string, iterations: number, reason: string) => `Job ${jobId} ended: ${outcome} after ${iterations} iteration(s) — ${reason}`,
    /** The job failed for good (its attempts used up); `reason` is its last failure. */
    jobFailed: (jobId: string, queue: string, reason: string) => `job ${jobId} on queue "${queue}" failed: ${reason}`,
    /** Following the job stopped on another error (the connection, …). */
    jobError: (jobId: string, message: string) => `job ${jobId}: ${message}`,
    /** The job was canceled (Ctrl-C twice while following it). */
    jobCanceled: (jobId: string) => `job ${jobId} canceled`,
    /** A job's failure and its stable code (the same in every language: what to search for). */
    withCode: (text: string, code: string) => `${text} (${code})`,
    /** First line of a queued job's status; the saved Looper status follows. */
    jobState: (jobId: string, state: string) => `Job ${jobId}: ${state}`,
    nothingTo: (jobId: string, state: string, command: string) => `Job ${jobId} is ${state}: nothing to ${command}.`,
    sent: (command: string, jobId: string) => `Sent ${command} to job ${jobId}.`,
    /** `--isolate worktree` (issue 30): the job's branch and change, and where they went. */
    worktree: {
      branch: (jobId: string, branch: string, files: number, insertions: number, deletions: number) =>
        `Job ${jobId} changed ${files} file(s), +${insertions} -${deletions}, on branch ${branch} of the worker:`,
      file: (file: string, insertions: number, deletions: number) => `  ${file} | ${insertions < 0 ? 'binary' : `+${insertions} -${deletions}`}`,
      unchanged: (jobId: string) => `Job ${jobId} changed nothing.`,
      applied: (branch: string, repo: string, base: string) => `Created branch ${branch} in ${repo} (from ${base.slice(0, 12)}); your checkout is unchanged. Review: git diff ${base.slice(0, 12)}..${branch}`,
      notApplied: (branch: string) => `Not fetched (--no-apply): the change stays on the worker's branch ${branch}.`,
      noCheckout: (cwd: string) => `${cwd} is not in a git checkout: the job starts from the worker's HEAD and its change is not fetched here.`,
      applyFailed: (jobId: string, message: string) => `could not create the branch of job ${jobId}: ${message}`,
      kept: (path: string, branch: string, reason: string, pid: number) => `troupe worker: kept workspace ${path} (branch ${branch}, ${reason}) left by process ${pid}`,
      removed: (count: number, repo: string) => `troupe worker: removed ${count} empty workspace(s) left in ${repo}`,
    },
  },
  migrate: {
    nothingToDo: (path: string) => `${path} already uses schema 1.2; nothing to do.`,
    wouldMigrate: (path: string, from: string) => `Would migrate ${path} from schema ${from} to 1.2 (dry run: nothing written).`,
    migrated: (path: string, from: string) => `Migrated ${path} from schema ${from} to 1.2.`,
    backup: (path: string) => `Backup: ${path}`,
    movedOut: (agent: string, text: string) => `Moved out of ${agent}'s args (put it in a member's systemInstruction): ${JSON.stringify(text)}`,
    warning: (text: string) => `Warning: ${text}`,
    cannotMigrate: (path: string, message: string) => `cannot migrate ${path}: ${message}`,
  },
  doctor: {
    registryNone: (paths: readonly string[]) => `Agent registry: none (looked for ${paths.join(', ')}); --coder and --reviewer name the built-in adapters.`,
    registryFile: (path: string, version: string) => `Agent registry: ${path} (schema ${version})`,
    registryShadowed: (path: string) => `  (also found, not used: ${path})`,
    registryInvalid: (path: string) => `Agent registry: ${path} is INVALID:`,
    /** A usable entry: its key, the command it runs (resolved) and that command's version. */
    entryOk: (key: string, command: string, version: string) => `  ✓ ${key} ${command} ${version}`,
    /** An entry that cannot be used, and why (every problem, `; `-separated). */
    entryFailed: (key: string, why: string) => `  ✗ ${key}: ${why}`,
    versionUnknown: (why: string) => `(version unknown${why ? `: ${why}` : ''})`,
    entryDetail: (label: string, value: string) => `      ${label}: ${value}`,
    entryNote: (text: string) => `      note: ${text}`,
    commandMissing: (command: string) => `${command} is not installed or not executable`,
    idleTimeoutNote: (adapter: string, ms: number) =>
      `completionDetection idleTimeout: a turn ends after ${ms} ms without output, even when ${adapter} is still working (a long command, a slow model); its own completion event is surer`,
    genericNote: 'no dedicated adapter: run through the generic adapter (plain output, its declared completion detection)',
    acpNote: 'ACP agent: `command baseArgs` driven over the Agent Client Protocol; its permission requests are allowed with --auto-allow, else file reads and edits only',
    apiKeySet: (name: string) => `${name} (set)`,
  },
  /** `troupe usage`. */
  usageReport: {
    none: (root: string) => `No usage recorded in ${root} yet (no troupe session has run there).`,
    header: (root: string, sessions: number) => `Usage in ${root} (${sessions} session${sessions === 1 ? '' : 's'})`,
    session: (id: string, current: boolean, started: string) => `Session ${id}${current ? ' (current)' : ''}, started ${started}`,
    total: 'total',
    allSessions: 'All sessions',
    byAgent: 'by agent:',
    byRun: 'by run:',
    byModel: 'by model:',
    records: (count: number) => `${count} turn${count === 1 ? '' : 's'}/call${count === 1 ? '' : 's'}`,
    unpriced: (count: number) => `${count} without a price (cost not counted; add the model to the price table)`,
    empty: 'nothing recorded',
    notRecorded: (detail: string) => `usage of this run is not recorded in the workspace: ${detail}`,
  },
  /** The `tests` reviewer's report. */
  testsReview: {
    allPass: (count: number, command: string) => `All ${count} test${count === 1 ? '' : 's'} pass (${command}).`,
    noTests: (command: string) => `No tests ran (${command}).`,
    noTestFiles: 'No test files were found: add tests for the task (e.g. a *.test.js file using node:test).',
    failingTest: (name: string) => `Failing test: ${name}`,
    exited: (command: string, code: string, failing: number | undefined) => `${command} exited with code ${code}${failing !== undefined ? ` (${failing} failing)` : ''}.`,
    someFail: (fail: number, tests: number, command: string) => `${fail} of ${tests} tests fail (${command}).`,
    failedWithCode: (command: string, code: string) => `${command} failed with exit code ${code}.`,
  },
  /** What each exit code means (help, README, the last line of a run that did not pass). */
  exitCodes: {
    0: 'done: JUDGE ended the run, the last review passed and no pending task is left (or the command was answered)',
    1: 'failed or refused (the message says why)',
    2: 'bad input or configuration (unknown command or option, malformed JSON, invalid registry or team file)',
    3: 'stopped on request before JUDGE ended the run',
    4: 'ended with work open: the iteration limit cut the run off, or it ended while the review still reported findings or pending tasks were never done',
    5: 'an agent failed: the Coder or the Review could not do its step (CLI missing, crashed, timed out, rejected credentials)',
    130: 'interrupted (Ctrl-C, SIGINT); the run stays resumable',
    143: 'terminated (SIGTERM); the run stays resumable',
  } as Record<number, string>,
};

/** The `troupe` command line's texts in one language (see {@link englishCliMessages}). */
export type CliMessages = typeof englishCliMessages;
