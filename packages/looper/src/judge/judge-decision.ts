import { parseJsonText } from '@troupe/core/model-runtime';
import { z } from 'zod';

/**
 * JUDGE's decision (seed 000 §2.1): go on with a new, integrated task, or end
 * the loop. `consumedPending` lists the numbers (1-based, as shown in the
 * JUDGE input) of the pending messages folded into `nextTask`; only those
 * leave the queue. Omitted, none do.
 */
export const judgeDecisionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('continue'),
    nextTask: z.string().trim().min(1, 'nextTask must not be empty'),
    reason: z.string().trim().min(1, 'reason must not be empty'),
    consumedPending: z.array(z.number().int().positive()).optional(),
  }),
  z.object({
    type: z.literal('terminate'),
    reason: z.string().trim().min(1, 'reason must not be empty'),
  }),
]);

/** A JUDGE decision. */
export type JudgeDecision = z.infer<typeof judgeDecisionSchema>;

/**
 * The schema sent to the model: one flat object (every provider's structured
 * output accepts an object root; not all accept a union), refined so that a
 * `continue` has a `nextTask`. {@link toJudgeDecision} turns it into a
 * {@link JudgeDecision}.
 */
export const judgeDecisionOutputSchema = z
  .object({
    type: z.enum(['continue', 'terminate']).describe('continue: run another Coder → Review iteration with nextTask; terminate: end the loop'),
    reason: z.string().min(1).describe('Why, in one or two sentences'),
    nextTask: z.string().optional().describe('Required for continue: the integrated next task for the Coder'),
    consumedPending: z
      .array(z.number().int().positive())
      .optional()
      .describe('For continue: numbers of the pending messages folded into nextTask'),
  })
  .superRefine((value, context) => {
    if (value.type === 'continue' && !value.nextTask?.trim()) {
      context.addIssue({ code: 'custom', path: ['nextTask'], message: 'nextTask is required when type is "continue"' });
    }
  });

/** The model's raw answer shape. */
export type JudgeDecisionOutput = z.infer<typeof judgeDecisionOutputSchema>;

/** Normalizes the model's flat answer into a {@link JudgeDecision}. */
export function toJudgeDecision(output: JudgeDecisionOutput): JudgeDecision {
  if (output.type === 'terminate') return { type: 'terminate', reason: output.reason.trim() };
  return {
    type: 'continue',
    nextTask: (output.nextTask ?? '').trim(),
    reason: output.reason.trim(),
    ...(output.consumedPending !== undefined ? { consumedPending: [...new Set(output.consumedPending)].sort((a, b) => a - b) } : {}),
  };
}

/** Result of {@link parseJudgeDecision}. */
export type ParseJudgeDecisionResult = { success: true; decision: JudgeDecision } | { success: false; error: string };

/**
 * Parses a decision from text (the JSON the seed's prompt asks for, bare, in
 * a ```json fence or inside prose) or from an already-parsed value. Never
 * throws.
 *
 * @example
 * ```ts
 * parseJudgeDecision('{"type":"terminate","reason":"Review passed, nothing pending."}');
 * // { success: true, decision: { type: 'terminate', reason: 'Review passed, nothing pending.' } }
 * ```
 */
export function parseJudgeDecision(input: unknown): ParseJudgeDecisionResult {
  let value = input;
  if (typeof input === 'string') {
    const json = parseJsonText(input);
    if (!json.success) return { success: false, error: json.message };
    value = json.value;
  }
  const parsed = judgeDecisionOutputSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { success: false, error: `${issue?.path.length ? issue.path.join('.') : 'decision'}: ${issue?.message ?? 'invalid'}` };
  }
  return { success: true, decision: toJudgeDecision(parsed.data) };
}
