import { describe, expect, it } from 'vitest';
import { createClassifyProcessor, defaultClassifyRules } from '@troupe/loop-stages';
import { perception, run } from '../testing/perception-test-kit';

describe('looper:classify', () => {
  it('classifies by the built-in keyword rules and tags the category', async () => {
    const out = await run(createClassifyProcessor(), [
      perception({ content: 'ERROR: connection refused' }),
      perception({ content: 'warning: slow query' }),
      perception({ content: 'how do I reset it?' }),
      perception({ subject: 'src/app.ts', content: 'file modified' }),
      perception({ content: 'all quiet' }),
      perception({ content: 'errors are terrors' }), // no whole-word "error"
    ]);
    expect(out.map((p) => p.category)).toEqual(['error', 'warning', 'question', 'change', 'other', 'other']);
    expect(out[0]?.tags).toEqual(['category:error']);
  });

  it('picks the best-scoring rule; weight, minScore and sources change the outcome', async () => {
    const rules = [
      { category: 'billing', keywords: ['invoice', 'refund', 'charge'] },
      { category: 'bug', keywords: ['crash'], weight: 3 },
    ];
    const classify = createClassifyProcessor({ rules });
    const [both, billing] = await run(classify, [
      perception({ content: 'refund crashed... crash on invoice page' }),
      perception({ content: 'invoice and refund' }),
    ]);
    expect(both?.category).toBe('bug'); // 3 × 1 beats 1 × 2
    expect(billing?.category).toBe('billing');
    const strict = createClassifyProcessor({ rules, minScore: 2, defaultCategory: 'misc' });
    expect((await run(strict, [perception({ content: 'one invoice' })]))[0]?.category).toBe('misc');
    const scoped = createClassifyProcessor({ rules: [{ category: 'prod-error', keywords: ['error'], sources: ['log:prod*'] }] });
    const scopedOut = await run(scoped, [perception({ source: 'log:prod-api', content: 'error' }), perception({ source: 'log:dev', content: 'error' })]);
    expect(scopedOut.map((p) => p.category)).toEqual(['prod-error', 'other']);
  });

  it('matches regex patterns and keeps existing categories unless told to overwrite', async () => {
    const rules = [{ category: 'ticket', patterns: [/\bJIRA-\d+\b/] }, ...defaultClassifyRules];
    const classify = createClassifyProcessor({ rules });
    const [ticket, kept] = await run(classify, [perception({ content: 'see JIRA-42' }), perception({ content: 'error', category: 'manual' })]);
    expect(ticket?.category).toBe('ticket');
    expect(kept?.category).toBe('manual');
    const overwrite = createClassifyProcessor({ overwrite: true });
    expect((await run(overwrite, [perception({ content: 'error', category: 'manual' })]))[0]?.category).toBe('error');
  });

  it('rejects bad rules with their path', () => {
    expect(() => createClassifyProcessor({ rules: [] })).toThrow(/rules/);
    expect(() => createClassifyProcessor({ rules: [{ category: '' }] })).toThrow(/rules\[0\]\.category/);
    expect(() => createClassifyProcessor({ rules: [{ category: 'x', patterns: ['(unclosed'] }] })).toThrow(/rules\[0\]\.patterns\[0\].*invalid regular expression/s);
  });
});
