import { EventBus } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { call, emitWorkspaceActivity, openStream, sampleDiff } from '../testing/dashboard-test-kit';
import { serveDashboard, type ServedDashboard } from '../index';

const served: ServedDashboard[] = [];
afterEach(async () => {
  for (const dashboard of served.splice(0)) await dashboard.close();
});

describe('workspace diffs on the dashboard server', () => {
  it('keeps each diff out of the state and the stream, and serves it on GET /api/workspaces/diff', async () => {
    const bus = new EventBus();
    const dashboard = await serveDashboard({ bus });
    served.push(dashboard);
    const stream = openStream(dashboard.url.replace('/?', '/events?'));
    await stream.snapshot;
    const diff = sampleDiff('notes.md', ['first', 'second']);
    emitWorkspaceActivity(bus, { aliceDiff: diff });
    const finished = await stream.next((input) => input.type === 'workspace:finished');
    expect(finished.payload).toMatchObject({ name: 'team-alice-c1', diffTruncated: false });
    expect(finished.payload).not.toHaveProperty('diff');
    expect(JSON.stringify(dashboard.handler.state())).not.toContain('+first');

    const api = (query: string) => dashboard.url.replace('/?', `/api/workspaces/diff?${query}&`);
    const answer = await call(api('name=team-alice-c1'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ name: 'team-alice-c1', diff, truncated: false });
    const missing = await call(api('name=nope'));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error).toContain('"nope"');
    expect((await call(api('name='))).status).toBe(400);
    const root = `http://127.0.0.1:${dashboard.port}`;
    expect((await call(`${root}/api/workspaces/diff?name=team-alice-c1`)).status).toBe(401);
    stream.close();
  });

  it('cuts a diff at limits.workspaceDiffChars and marks it truncated, in the state too', async () => {
    const bus = new EventBus();
    const dashboard = await serveDashboard({ bus, limits: { workspaceDiffChars: 40 } });
    served.push(dashboard);
    await dashboard.handler.ready;
    emitWorkspaceActivity(bus, { aliceDiff: sampleDiff('notes.md', ['a'.repeat(100)]) });
    const answer = JSON.parse((await call(dashboard.url.replace('/?', '/api/workspaces/diff?name=team-alice-c1&'))).body) as { diff: string; truncated: boolean };
    expect(answer.diff).toHaveLength(40);
    expect(answer.truncated).toBe(true);
    expect(dashboard.handler.state().workspaces.find((ws) => ws.owner === 'alice')?.diffTruncated).toBe(true);
  });

  it('marks a diff the event itself cut (past 200 kB) as truncated, however short it is here', async () => {
    const bus = new EventBus();
    const dashboard = await serveDashboard({ bus });
    served.push(dashboard);
    await dashboard.handler.ready;
    emitWorkspaceActivity(bus, { aliceDiffTruncated: true });
    const answer = JSON.parse((await call(dashboard.url.replace('/?', '/api/workspaces/diff?name=team-alice-c1&'))).body) as { diff: string; truncated: boolean };
    expect(answer).toMatchObject({ diff: expect.stringContaining('+first'), truncated: true });
    expect(dashboard.handler.state().workspaces.map((ws) => [ws.owner, ws.diffTruncated])).toEqual([
      ['alice', true],
      ['bob', false],
      ['carol', false],
    ]);
  });
});
