import { describe, expect, it } from 'vitest';
import { describeGeminiExitCode, httpStatusFromGeminiExitCode } from './index';

describe('describeGeminiExitCode', () => {
  it('explains the recorded exit codes: 41 (auth), 55 (trust), 145 (401), 244 (500)', () => {
    expect(describeGeminiExitCode(41)).toMatchInlineSnapshot(
      `"exit code 41: authentication failed: "Invalid auth method selected." — with only GEMINI_API_KEY (and GOOGLE_GEMINI_BASE_URL) in the environment the CLI picks the "gateway" auth type, which headless mode rejects. Set security.auth.selectedType: "gemini-api-key" in $HOME/.gemini/settings.json (the adapter does this with prepareHome), or the API key is missing"`,
    );
    expect(describeGeminiExitCode(55)).toMatchInlineSnapshot(
      `"exit code 55: the working directory is not trusted: "Gemini CLI is not running in a trusted directory". Pass --skip-trust (the adapter does unless skipTrust: false) or set GEMINI_CLI_TRUST_WORKSPACE=true"`,
    );
    expect(describeGeminiExitCode(145)).toBe(
      'exit code 145 = HTTP 401 & 0xFF: the API key was rejected (invalid or missing credentials); 401 is not retried',
    );
    expect(describeGeminiExitCode(244)).toBe(
      'exit code 244 = HTTP 500 & 0xFF: the API failed with an internal error, after general.maxAttempts attempts',
    );
  });

  it('other statuses, documented codes, unknown codes and no code', () => {
    expect(describeGeminiExitCode(173)).toBe('exit code 173 = HTTP 429 & 0xFF: rate limit or quota exhausted');
    expect(describeGeminiExitCode(162)).toBe('exit code 162 = HTTP 418 & 0xFF: client error');
    expect(describeGeminiExitCode(42)).toContain('No previous sessions found');
    expect(describeGeminiExitCode(0)).toContain('success');
    expect(describeGeminiExitCode(7)).toBe('exit code 7: not a code Gemini CLI 0.61.0 documents (see stderr)');
    expect(describeGeminiExitCode(null)).toBe('no exit code: the process was killed by a signal or never started');
  });

  it('httpStatusFromGeminiExitCode: exit codes 144–255 are HTTP 400–511, fatal codes are not', () => {
    expect([145, 244, 247, 144, 255].map(httpStatusFromGeminiExitCode)).toEqual([401, 500, 503, 400, 511]);
    expect([0, 1, 41, 55, 130, 143, 256, -1, 1.5, null].map(httpStatusFromGeminiExitCode)).toEqual(Array(10).fill(undefined));
  });
});
