import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentAdapter } from '@troupe/core';
import { replayThroughAdapter } from './adapter-conformance';

/**
 * Replays every `<name>.stdout.jsonl` recording in `folder` through one real
 * turn of a fresh adapter (its exit code from `<name>.meta.json` when there
 * is one), and reads each answer both ways: the turn's text, which
 * `AgentManager` builds from the parts it parsed as the lines streamed, and
 * `parseResponse` of the whole output (what it reported before it parsed
 * each line once). Resolves with `"<outcome status>: <text>"` by recording
 * name, to snapshot so the answers stay what they were.
 *
 * @throws Error naming each recording whose two readings differ.
 *
 * @example
 * ```ts
 * expect(await recordedAnswers(() => createMyAdapter(), 'src/__fixtures__')).toMatchInlineSnapshot();
 * ```
 */
export async function recordedAnswers(createAdapter: () => AgentAdapter, folder: string): Promise<Record<string, string>> {
  const names = (await readdir(folder)).filter((file) => file.endsWith('.stdout.jsonl')).map((file) => file.slice(0, -'.stdout.jsonl'.length)).sort();
  const answers: Record<string, string> = {};
  const differing: string[] = [];
  for (const name of names) {
    const meta = await readFile(join(folder, `${name}.meta.json`), 'utf8').then((text) => JSON.parse(text) as { exit_code?: unknown }, () => undefined);
    const exitCode = typeof meta?.exit_code === 'number' ? meta.exit_code : 0;
    const { result } = await replayThroughAdapter(createAdapter(), { name, stdoutFile: join(folder, `${name}.stdout.jsonl`), exitCode }, folder);
    const whole = result.outcome.status === 'completed' ? createAdapter().parseResponse(result.outcome.output) : '';
    if (whole !== result.text) differing.push(`${name}: the parts gave ${JSON.stringify(result.text)}, parseResponse ${JSON.stringify(whole)}`);
    answers[name] = `${result.outcome.status}: ${result.text}`;
  }
  if (differing.length > 0) throw new Error(`the turn's text and parseResponse of its whole output differ:\n${differing.join('\n')}`);
  return answers;
}
