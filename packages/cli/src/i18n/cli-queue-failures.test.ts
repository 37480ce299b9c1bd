// Why a queued job failed, in the CLI's languages: every failure code of @troupe/queue-bullmq has a text in each,
// a known code is worded from its parameters, and a code this CLI does not know shows the worker's own message.
import { QueueError, type QueueFailureCode } from '@troupe/queue-bullmq';
import { describe, expect, it } from 'vitest';
import { CLI_CATALOGUES } from './cli-catalogue';
import { QUEUE_FAILURE_TEXTS, queueFailureText } from './cli-queue-failures';

const en = CLI_CATALOGUES.en.cli;
const zh = CLI_CATALOGUES['zh-CN'].cli;

describe('queue failure texts', () => {
  it('every language has a text for every code, and English is the library\'s own message', () => {
    const codes = Object.keys(QUEUE_FAILURE_TEXTS.en).sort();
    expect(Object.keys(QUEUE_FAILURE_TEXTS['zh-CN']).sort()).toEqual(codes);
    const error = new QueueError('QUEUE_GIT_URL_REFUSED', { url: 'http://example.com/a.git', rule: 'transport', transport: 'http' });
    expect(queueFailureText({ code: error.failureCode, params: error.params, message: error.message }, en)).toBe(`${error.message} (QUEUE_GIT_URL_REFUSED)`);
  });

  it('a known code in Chinese, from its parameters; the code stays', () => {
    const failure = { code: 'QUEUE_GIT_CLONE_TIMEOUT', params: { url: 'https://example.com/a.git', timeoutMs: 600000 }, message: 'git clone of https://example.com/a.git took more than 600000 ms; stopped' };
    expect(queueFailureText(failure, zh)).toBe('git clone https://example.com/a.git 超过了 600000 毫秒，已停止（QUEUE_GIT_CLONE_TIMEOUT）');
    const refused = new QueueError('QUEUE_GIT_URL_REFUSED', { url: 'fd::3', rule: 'remote-helper' });
    expect(queueFailureText({ code: refused.failureCode, params: refused.params, message: refused.message }, zh)).toBe(
      '拒绝 gitUrl "fd::3": 不允许使用 git 远程助手（TRANSPORT::ADDRESS）；请使用 https:// 或 ssh:// URL（QUEUE_GIT_URL_REFUSED）',
    );
  });

  it('an unknown code falls back to the worker\'s message, code shown; no code, the message alone', () => {
    const newer = { code: 'QUEUE_FROM_A_NEWER_WORKER', params: { jobId: 'j1' }, message: 'job j1: something new went wrong' };
    expect(queueFailureText(newer, zh)).toBe('job j1: something new went wrong（QUEUE_FROM_A_NEWER_WORKER）');
    expect(queueFailureText(newer, en)).toBe('job j1: something new went wrong (QUEUE_FROM_A_NEWER_WORKER)');
    // Not a code because an object has the property: only the failure codes' own texts.
    expect(queueFailureText({ code: 'toString', params: {}, message: 'plain' }, en)).toBe('plain (toString)');
    expect(queueFailureText({ code: undefined, params: undefined, message: 'no agent CLI here' }, zh)).toBe('no agent CLI here');
  });

  it('parameters of an unknown shape (a rule from a newer worker) still give a text', () => {
    const code: QueueFailureCode = 'QUEUE_GIT_URL_REFUSED';
    expect(queueFailureText({ code, params: { url: 'x::y', rule: 'brand-new-rule' }, message: 'gitUrl "x::y" refused: new' }, zh)).toBe('拒绝 gitUrl "x::y": brand-new-rule（QUEUE_GIT_URL_REFUSED）');
  });
});
