// A host that makes workspaces 8 at a time until it is killed (kill -9 mid-run): in each batch some get a commit,
// some an uncommitted file, some are removed again, so the kill lands in every step of creation, work and removal.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createWorkspace, removeWorkspace, type Workspace } from '@troupe/worktree';

const [repo, prefix] = process.argv.slice(2) as [string, string];
const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.invalid' };

async function work(ws: Workspace, index: number): Promise<void> {
  if (index % 4 === 0) {
    await writeFile(join(ws.path, 'work.txt'), `${ws.name}\n`);
    await promisify(execFile)('git', ['add', '-A'], { cwd: ws.path, env });
    await promisify(execFile)('git', ['commit', '--quiet', '-m', ws.name], { cwd: ws.path, env });
  } else if (index % 4 === 1) await writeFile(join(ws.path, 'draft.txt'), `${ws.name}\n`);
  else if (index % 4 === 2) await removeWorkspace(ws);
}

let made = 0;
for (let batch = 0; ; batch += 1) {
  await Promise.all(
    Array.from({ length: 8 }, async (_, index) => {
      const ws = await createWorkspace({ repo, name: `${prefix}-${batch}-${index}` });
      made += 1;
      await work(ws, index);
    }),
  );
  process.stdout.write(`made ${made}\n`);
}
