// `troupe --help` and every command's help come from the catalogue: Simplified Chinese under a Chinese LANG /
// LC_ALL / --lang zh-CN, English otherwise, through the real command line (runCli).
import { describe, expect, it } from 'vitest';
import { runCliCaptured, testEnv } from '../testing/cli-test-kit';
import { COMMAND_NAMES } from './cli-command-options';

const CHINESE_TEXT = /[\u4e00-\u9fff]/;

async function help(args: readonly string[], env: Record<string, string | undefined>): Promise<string> {
  const result = await runCliCaptured(args, { env: testEnv(env) });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  return result.stdout;
}

/** The rows of the options table: `  -w, --workspace DIR  …` or `      --newsession  …`. */
function optionRows(text: string): string[] {
  return text.split('\n').filter((line) => /^ {2}(-\w, | {4})--[\w-]+/.test(line));
}

describe('troupe --help in the language of the environment', () => {
  it('troupe --help: Chinese under LANG=zh_CN.UTF-8, English under en_US and with no LANG', async () => {
    const zh = await help(['--help'], { LANG: 'zh_CN.UTF-8' });
    expect(zh).toMatch(/^用法: troupe \[COMMAND\] \[选项\]\n/);
    expect(zh).toContain('\n命令:\n  looper            在工作区上运行 Looper（Coder → Review → JUDGE），或控制正在那里运行的 Looper。\n');
    expect(zh).toContain('\n  worker            在本机运行来自 BullMQ/Redis 队列的 Looper 作业（横向扩展）。\n');
    expect(zh).toMatch(/\n选项（交互式会话）:\n {2}-w, --workspace DIR +智能体工作的项目文件夹；/);
    expect(zh).toContain('\n语言: --lang en|zh-CN，');
    expect(zh).toMatch(/\n退出码:\n {2}0 {4}完成: /);
    expect(zh).not.toMatch(/Usage:|Commands:|Options|Exit codes:|Show this help/);

    for (const env of [{ LANG: 'en_US.UTF-8' }, {}]) {
      const en = await help(['--help'], env);
      expect(en).toMatch(/^Usage: troupe \[COMMAND\] \[options\]\n/);
      expect(en).toContain('\n  worker            Run Looper jobs from a BullMQ/Redis queue on this machine (scale out).\n');
      expect(en).toMatch(/\n {2}-h, --help +Show this help\.\n/);
      expect(en).not.toMatch(CHINESE_TEXT);
    }
  });

  it('troupe worker --help: Chinese under LANG=zh_CN.UTF-8 (and LC_ALL, --lang), English otherwise', async () => {
    const zh = await help(['worker', '--help'], { LANG: 'zh_CN.UTF-8' });
    expect(zh).toMatch(/^用法: troupe worker --redis URL \[--concurrency N\] \[--queues A,B\] \[选项\]\n\n从队列中取出 Looper 作业，/);
    expect(zh).toMatch(/\n {6}--concurrency N +本 worker 上每个队列同时运行的作业数。默认: 1。\n/);
    expect(zh).toMatch(/\n {6}--allow-root DIR +允许作业工作的文件夹/);
    expect(zh).toContain('\n示例:\n  redis-server --appendonly yes --port 6379 &\n');
    expect(zh).toMatch(/\n退出码:\n/);
    expect(await help(['worker', '--help'], { LC_ALL: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' })).toBe(zh);
    expect(await help(['worker', '--help', '--lang', 'zh-CN'], { LANG: 'en_US.UTF-8' })).toBe(zh);

    const en = await help(['worker', '--help'], { LANG: 'en_US.UTF-8' });
    expect(en).toMatch(/^Usage: troupe worker --redis URL \[--concurrency N\] \[--queues A,B\] \[options\]\n\nTakes Looper jobs from the queue/);
    expect(en).toMatch(/\n {6}--concurrency N +Jobs run at once on this worker, per queue\. Default: 1\.\n/);
    expect(en).not.toMatch(CHINESE_TEXT);
    expect(await help(['worker', '--help', '--lang', 'en'], { LANG: 'zh_CN.UTF-8' })).toBe(en);
  });

  it.each(['troupe', ...COMMAND_NAMES])('the help of %s has every part and every option translated, and the same options in both languages', async (topic) => {
    const args = topic === 'troupe' ? ['--help'] : ['help', topic];
    const zh = await help(args, { LANG: 'zh_CN.UTF-8' });
    const en = await help(args, { LANG: 'en_US.UTF-8' });
    expect(zh.split('\n')[0]).toMatch(/^用法: troupe/);
    const zhRows = optionRows(zh);
    expect(zhRows.length).toBeGreaterThan(0);
    // Every option row says what it does in Chinese; the option spellings and placeholders stay as typed.
    for (const row of zhRows) expect(row).toMatch(CHINESE_TEXT);
    const spellings = (rows: string[]) => rows.map((row) => row.trim().split(/ {2,}/)[0]);
    expect(spellings(zhRows)).toEqual(spellings(optionRows(en)));
    // Compatibility spellings (`troupe --looper`, `--devhub`) are accepted but never listed.
    expect(en).not.toMatch(/ --(looper|devhub)\b/);
  });
});
