/*
 * Test support (not published): fixture paths, and running a real adapter turn
 * with its command swapped for a stand-in script, through the real AgentManager.
 */
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, type AgentTurnResult } from '@troupe/core/cli-turn';
import { type AgentAdapterV1, type MemberAgentConfig } from '@troupe/core';

import { wrapAgentAdapter } from '@troupe/core/testing';

export { withFakeAgentCli } from '@troupe/core/testing';

/** Absolute path of a file in this folder. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../__fixtures__/${name}`, import.meta.url));
}

/** The stand-in that reports its argv, cwd, env and GEMINI_SYSTEM_MD content. */
export const fakeGeminiEnvScript = fixturePath('fake-gemini-env.mjs');

/**
 * Wraps an adapter so its process is `node <script> <script args> <the adapter's own args>`:
 * everything else (env, cwd, argument delivery, cleanup, parsing) is the adapter's.
 */
export function withScript(adapter: AgentAdapterV1, script: string, scriptArgs: readonly string[] = []): AgentAdapterV1 {
  return wrapAgentAdapter(adapter, {
    async getProcessConfig(member, workDir, context) {
      const real = await adapter.getProcessConfig(member, workDir, context);
      return { ...real, command: process.execPath, args: [script, ...scriptArgs, ...(real.args ?? [])] };
    },
  });
}

/** Runs turns of one member through a fresh AgentManager; returns each turn's result. */
export async function runTurns(
  adapter: AgentAdapterV1,
  messages: readonly string[],
  member: MemberAgentConfig = {},
): Promise<AgentTurnResult[]> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: adapter.adapterId, create: () => adapter });
  const manager = new AgentManager({ adapters });
  try {
    await manager.ensureAgentStarted('member', adapter.adapterId, member);
    const results: AgentTurnResult[] = [];
    for (const message of messages) results.push(await manager.send('member', message, { timeoutMs: 20_000 }).result);
    return results;
  } finally {
    await manager.cleanup();
  }
}
