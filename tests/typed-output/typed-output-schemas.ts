import { z } from 'zod';
import type { AgentOutputSchema } from '@troupe/core/cli-turn';

/** One schema of the typed-output run: what is asked, and an answer a well-behaved model gives. */
export interface TypedOutputCase {
  name: string;
  schema: AgentOutputSchema;
  /** A valid object, as a model answers it when optional fields may be left out. */
  answer: unknown;
  /**
   * The same object as a strict-mode model answers it (Codex `--output-schema`: every field present, an optional one
   * `null`); defaults to `answer`.
   */
  strictAnswer?: unknown;
  /** What the validated object must equal (defaults to `answer`). */
  expected?: unknown;
}

/**
 * Ten schemas: nested objects, enums, arrays, optional and nullable fields, and JSON Schema objects without
 * `additionalProperties: false`.
 */
export const TYPED_OUTPUT_CASES: readonly TypedOutputCase[] = [
  { name: 'flat', schema: z.object({ title: z.string(), count: z.number().int(), done: z.boolean() }), answer: { title: 'Ship', count: 3, done: false } },
  {
    name: 'nested objects',
    schema: z.object({ repo: z.object({ owner: z.string(), name: z.string(), stats: z.object({ stars: z.number(), forks: z.number() }) }) }),
    answer: { repo: { owner: 'troupe', name: 'sdk', stats: { stars: 10, forks: 2 } } },
  },
  { name: 'enum', schema: z.object({ verdict: z.enum(['approve', 'reject', 'comment']), reason: z.string() }), answer: { verdict: 'reject', reason: 'tests fail' } },
  {
    name: 'array of objects',
    schema: z.object({ steps: z.array(z.object({ id: z.number().int(), text: z.string() })).min(1) }),
    answer: { steps: [{ id: 1, text: 'build' }, { id: 2, text: 'test' }] },
  },
  {
    name: 'optional fields',
    schema: z.object({ name: z.string(), nickname: z.string().optional(), age: z.number().optional() }),
    answer: { name: 'Ada', age: 36 },
    strictAnswer: { name: 'Ada', nickname: null, age: 36 },
  },
  { name: 'nullable fields', schema: z.object({ assignee: z.string().nullable(), due: z.string().nullable() }), answer: { assignee: null, due: '2026-12-01' } },
  {
    name: 'optional and nullable, nested',
    schema: z.object({ task: z.object({ id: z.string(), parent: z.string().nullable(), labels: z.array(z.string()).optional(), note: z.string().nullable().optional() }) }),
    answer: { task: { id: 't1', parent: null, note: null } },
    strictAnswer: { task: { id: 't1', parent: null, labels: null, note: null } },
  },
  {
    name: 'JSON Schema without additionalProperties: false',
    schema: {
      type: 'object',
      properties: { file: { type: 'string' }, line: { type: 'integer', minimum: 1 }, severity: { type: 'string', enum: ['info', 'warning', 'error'] } },
      required: ['file', 'line'],
    },
    answer: { file: 'src/a.ts', line: 12, severity: 'warning' },
  },
  {
    name: 'JSON Schema, nested, optional without additionalProperties: false',
    schema: {
      type: 'object',
      properties: {
        summary: { type: 'string' },
        findings: { type: 'array', items: { type: 'object', properties: { rule: { type: 'string' }, fixable: { type: 'boolean' } }, required: ['rule'] } },
      },
      required: ['summary', 'findings'],
    },
    answer: { summary: 'two findings', findings: [{ rule: 'no-any', fixable: true }, { rule: 'max-lines' }] },
    strictAnswer: { summary: 'two findings', findings: [{ rule: 'no-any', fixable: true }, { rule: 'max-lines', fixable: null }] },
  },
  {
    name: 'deep: arrays of enums inside arrays of objects',
    schema: z.object({
      plan: z.array(z.object({ phase: z.enum(['design', 'build', 'ship']), owners: z.array(z.string()), risks: z.array(z.enum(['low', 'medium', 'high'])) })),
      approved: z.boolean(),
    }),
    answer: { plan: [{ phase: 'design', owners: ['ana'], risks: ['low'] }, { phase: 'ship', owners: [], risks: ['high', 'medium'] }], approved: true },
  },
];
