/**
 * Exit codes of Gemini CLI 0.61.0 (its `Fatal*Error` classes), and the
 * HTTP statuses it turns into exit codes.
 */
const FATAL_EXIT_CODES: Record<number, string> = {
  0: 'success (also what a SIGTERM gives with GEMINI_CLI_NO_RELAUNCH=true, without a result line)',
  1: 'general error (see stderr)',
  41:
    'authentication failed: "Invalid auth method selected." — with only GEMINI_API_KEY (and GOOGLE_GEMINI_BASE_URL) in the ' +
    'environment the CLI picks the "gateway" auth type, which headless mode rejects. Set security.auth.selectedType: ' +
    '"gemini-api-key" in $HOME/.gemini/settings.json (the adapter does this with prepareHome), or the API key is missing',
  42:
    'invalid input: an empty prompt ("No input provided via stdin"), a bad flag, or --resume of a session this HOME and ' +
    'project do not have ("Error resuming session: No previous sessions found for this project.")',
  44: 'sandbox error',
  52: 'configuration error (invalid settings.json)',
  53: 'the session turn limit (maxSessionTurns) was reached',
  54: 'a tool failed fatally (e.g. no space left on the device)',
  55:
    'the working directory is not trusted: "Gemini CLI is not running in a trusted directory". Pass --skip-trust ' +
    '(the adapter does unless skipTrust: false) or set GEMINI_CLI_TRUST_WORKSPACE=true',
  130: 'the operation was cancelled (SIGINT)',
};

const HTTP_STATUS_TEXT: Record<number, string> = {
  400: 'bad request (invalid model name or request)',
  401: 'the API key was rejected (invalid or missing credentials); 401 is not retried',
  403: 'permission denied (the key lacks access to this model or API)',
  404: 'not found (unknown model or wrong base URL)',
  429: 'rate limit or quota exhausted',
  500: 'the API failed with an internal error, after general.maxAttempts attempts',
  502: 'bad gateway',
  503: 'the API is unavailable or overloaded, after general.maxAttempts attempts',
  504: 'the API timed out',
};

/**
 * The HTTP status an exit code stands for. Gemini CLI ends a turn that failed
 * with an API error by `process.exit(status)`, which the OS truncates to
 * `status & 0xFF`: 401 → 145, 429 → 173, 500 → 244, 503 → 247.
 * Returns `undefined` for codes that are not such a status.
 */
export function httpStatusFromGeminiExitCode(exitCode: number | null | undefined): number | undefined {
  if (typeof exitCode !== 'number' || !Number.isInteger(exitCode)) return undefined;
  if (exitCode in FATAL_EXIT_CODES) return undefined;
  const status = exitCode + 256;
  return status >= 400 && status <= 511 ? status : undefined;
}

/**
 * Explains a Gemini CLI exit code in words, for error messages and logs —
 * the core reports a process that exits before its `result` line as a
 * `ProcessError` carrying only the number.
 *
 * @example
 * ```ts
 * describeGeminiExitCode(145); // 'exit code 145 = HTTP 401 & 0xFF: the API key was rejected …'
 * describeGeminiExitCode(41);  // 'exit code 41: authentication failed: "Invalid auth method selected." …'
 *
 * const result = await manager.send('coder', 'Fix the bug').result;
 * if (result.outcome.status === 'failed') console.error(describeGeminiExitCode(result.outcome.exitCode));
 * ```
 */
export function describeGeminiExitCode(exitCode: number | null | undefined): string {
  if (exitCode === null || exitCode === undefined) return 'no exit code: the process was killed by a signal or never started';
  const fatal = FATAL_EXIT_CODES[exitCode];
  if (fatal !== undefined) return `exit code ${exitCode}: ${fatal}`;
  const status = httpStatusFromGeminiExitCode(exitCode);
  if (status !== undefined) {
    const text = HTTP_STATUS_TEXT[status] ?? (status >= 500 ? 'server error' : 'client error');
    return `exit code ${exitCode} = HTTP ${status} & 0xFF: ${text}`;
  }
  return `exit code ${exitCode}: not a code Gemini CLI 0.61.0 documents (see stderr)`;
}
