import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { matchToolPolicy } from '@troupe/core';
import { loadParityPolicy, PARITY_ADAPTERS, parityResults, renderParityTable, type ParityCell } from './permission-parity';

const policyPath = fileURLToPath(new URL('./parity-policy.json', import.meta.url));
const tablePath = fileURLToPath(new URL('../../docs/guides/permissions-parity.md', import.meta.url));

describe('one policy file, the same decisions on Claude Code, Codex, Gemini CLI and ACP', () => {
  it('decides every call identically on every adapter that is asked, as the policy says', async () => {
    const policy = await loadParityPolicy(policyPath);
    const results = await parityResults(policy);
    let compared = 0;
    for (const [scenario, rows] of Object.entries(results)) {
      for (const { item, cells } of rows) {
        const asked = PARITY_ADAPTERS.map((adapter) => cells[adapter]).filter((cell): cell is ParityCell => typeof cell !== 'string');
        // Claude Code and Gemini CLI (its hook runs for every tool) are asked about every call; the others wherever their CLI asks.
        expect(typeof cells['Claude Code'], `${scenario}: ${item.label}`).toBe('object');
        expect(typeof cells['Gemini CLI'], `${scenario}: ${item.label}`).toBe('object');
        const decisions = new Set(asked.map((cell) => cell.decision));
        expect([...decisions], `${scenario}: ${item.label}`).toHaveLength(1);
        const [decision] = [...decisions] as [string];
        // The answer each CLI gets agrees with the decision (allow → allow/accept, deny → deny/decline).
        for (const cell of asked) expect(/^`(allow|accept)`$/.test(cell.answer), `${scenario}: ${item.label}: ${cell.answer}`).toBe(decision.startsWith('allow'));
        compared += asked.length;
      }
    }
    // The decisions are the policy's: spot-check the rules against matchToolPolicy on the canonical request.
    expect(matchToolPolicy(policy, { tool: 'Bash', kind: 'execute', target: 'rm -rf build' })).toMatchObject({ behavior: 'deny', rule: 'kind:execute(rm *)' });
    const withCallback = results['with a callback (it allows)'];
    const without = results['without a callback'];
    const cell = (rows: typeof withCallback, label: string) => rows.find((row) => row.item.label.startsWith(label))!.cells['Claude Code'] as ParityCell;
    expect(cell(withCallback, 'run `rm -rf build`').decision).toBe('deny (policy `kind:execute(rm *)`)');
    expect(cell(withCallback, 'run `git push').decision).toBe('allow (callback)');
    expect(cell(without, 'run `git push').decision).toBe('deny (default after `kind:execute(git push*)`)');
    expect(cell(without, 'read `src').decision).toBe('allow (policy `kind:read`)');
    expect(cell(without, 'MCP `mcp__docs').decision).toBe('allow (policy `mcp__docs__*`)');
    expect(cell(without, 'write `README').decision).toBe('deny (default)');
    expect(compared).toBeGreaterThanOrEqual(86);
  });

  it('docs/guides/permissions-parity.md is the table this test generates (TROUPE_UPDATE_PARITY=1 rewrites it)', async () => {
    const policyText = readFileSync(policyPath, 'utf8');
    const table = renderParityTable(policyText, await parityResults(await loadParityPolicy(policyPath)));
    if (process.env.TROUPE_UPDATE_PARITY === '1' || !existsSync(tablePath)) writeFileSync(tablePath, table);
    expect(readFileSync(tablePath, 'utf8'), 'docs/guides/permissions-parity.md is stale: run TROUPE_UPDATE_PARITY=1 npx vitest run tests/permissions').toBe(table);
  });
});
