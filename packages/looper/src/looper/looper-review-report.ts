import { parseJsonText } from '@troupe/core/model-runtime';
import { z } from 'zod';

const lowerCase = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** The reviewer's verdict on the workspace: `normal`, `warning` or `critical`. */
export const reviewHealthSchema = z.preprocess(lowerCase, z.enum(['normal', 'warning', 'critical']));
/** Review health. */
export type ReviewHealth = z.infer<typeof reviewHealthSchema>;

/** One problem the reviewer found. */
export const reviewFindingSchema = z.object({
  severity: z.preprocess(lowerCase, z.enum(['info', 'warning', 'critical'])).default('warning'),
  message: z.string().trim().min(1),
  file: z.string().optional(),
});
/** One review finding. */
export type ReviewFinding = z.infer<typeof reviewFindingSchema>;

/**
 * The structured report a Review step returns: overall health, a one-line
 * summary, and findings. The reviewer ends its answer with it as a fenced
 * JSON block (see {@link buildReviewPrompt}).
 */
export const reviewReportSchema = z.object({
  health: reviewHealthSchema,
  summary: z.string().default(''),
  findings: z.array(reviewFindingSchema).default([]),
});
/** A review report. */
export type ReviewReport = z.infer<typeof reviewReportSchema>;

/** What {@link parseReviewReport} found: a parsed report, or the documented fallback and why. */
export type ParsedReviewReport =
  | { source: 'parsed'; report: ReviewReport }
  | { source: 'fallback'; report: ReviewReport; issue: string };

const FENCE = /```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)```/g;

/**
 * Reads the review report out of a reviewer's answer: the last fenced block
 * that is valid JSON matching {@link reviewReportSchema} (reviewers quote code
 * before their verdict), else the answer as a whole (or its outermost JSON
 * object).
 *
 * **Fallback** when the reviewer did not comply (no such JSON): health
 * `warning` — the review happened but could not be read, so the Looper must
 * neither declare the work clean (`normal` would end the loop) nor invent a
 * critical problem — with one finding saying the report was unreadable. The
 * raw answer still reaches JUDGE as the review output.
 *
 * @example
 * ```ts
 * parseReviewReport('Looks fine.\n```json\n{"health":"normal","summary":"ok","findings":[]}\n```').report.health; // 'normal'
 * parseReviewReport('Looks fine to me!'); // { source: 'fallback', report: { health: 'warning', … }, issue: '…' }
 * ```
 */
export function parseReviewReport(text: string): ParsedReviewReport {
  const blocks = [...text.matchAll(FENCE)].map((match) => match[1] ?? '');
  let issue = 'no fenced JSON block with a report';
  for (let i = blocks.length - 1; i >= 0; i--) {
    const attempt = tryReport(blocks[i] as string);
    if (attempt.success) return { source: 'parsed', report: attempt.report };
    issue = attempt.issue;
  }
  if (blocks.length === 0) {
    const whole = parseJsonText(text);
    if (whole.success) {
      const parsed = reviewReportSchema.safeParse(whole.value);
      if (parsed.success) return { source: 'parsed', report: parsed.data };
      issue = describeZodIssue(parsed.error);
    }
  }
  return {
    source: 'fallback',
    issue,
    report: {
      health: 'warning',
      summary: 'The reviewer did not return a report in the expected format; its answer is passed on as-is.',
      findings: [{ severity: 'warning', message: `Review report unreadable (${issue}).` }],
    },
  };
}

function tryReport(block: string): { success: true; report: ReviewReport } | { success: false; issue: string } {
  let json: unknown;
  try {
    json = JSON.parse(block);
  } catch (error) {
    return { success: false, issue: `the last fenced block is not valid JSON (${(error as Error).message})` };
  }
  const parsed = reviewReportSchema.safeParse(json);
  return parsed.success ? { success: true, report: parsed.data } : { success: false, issue: describeZodIssue(parsed.error) };
}

function describeZodIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : 'report';
  return `${path}: ${issue?.message ?? 'invalid'}`;
}

/** Renders a report the way JUDGE and the `[AUTO]` messages show it. */
export function formatReviewReport(report: ReviewReport): string {
  const lines = [`Health: ${report.health}`];
  if (report.summary) lines.push(`Summary: ${report.summary}`);
  if (report.findings.length === 0) lines.push('Findings: none');
  else {
    lines.push('Findings:');
    for (const finding of report.findings) lines.push(`- [${finding.severity}] ${finding.file ? `${finding.file}: ` : ''}${finding.message}`);
  }
  return lines.join('\n');
}

/** What the review prompt is built from. */
export interface ReviewPromptInput {
  task: string;
  iteration: number;
  coderStatus: 'SUCCESS' | 'FAILED';
  /** The Coder's output (already shortened). */
  coderOutput: string;
}

/**
 * The default Review step input: the task, what the Coder reported, and the
 * exact report format (a fenced JSON block) the Looper parses.
 */
export function buildReviewPrompt(input: ReviewPromptInput): string {
  return [
    'Review the current state of the workspace for the task below: correctness, error handling, security, tests.',
    '',
    `Task: ${input.task}`,
    `Iteration: ${input.iteration}`,
    '',
    `The coder reported ${input.coderStatus}:`,
    input.coderOutput || '(no output)',
    '',
    'End your answer with exactly one fenced JSON block in this format:',
    '```json',
    '{"health":"normal","summary":"one sentence","findings":[{"severity":"warning","message":"what is wrong and where","file":"src/example.ts"}]}',
    '```',
    'health: "critical" when something must be fixed before the task is done (broken build, failing tests, security hole,',
    'task not done); "warning" when it should be improved but the task is done; "normal" when there is nothing to fix.',
    'severity of each finding: "critical", "warning" or "info".',
  ].join('\n');
}
