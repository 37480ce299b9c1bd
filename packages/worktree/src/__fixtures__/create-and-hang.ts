// A host that creates workspaces, makes a commit in the first one, says so, then waits to be killed (kill -9).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkspace } from '../index';

const [repo, count] = process.argv.slice(2) as [string, string];
const workspaces = [];
for (let index = 0; index < Number(count); index += 1) workspaces.push(await createWorkspace({ repo, name: `host-${index}` }));
const committed = workspaces[0]!;
writeFileSync(join(committed.path, 'work.txt'), 'work\n');
const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.invalid' };
execFileSync('git', ['add', '-A'], { cwd: committed.path, env });
execFileSync('git', ['commit', '--quiet', '-m', 'work'], { cwd: committed.path, env });
process.stdout.write('ready\n');
setInterval(() => {}, 1000);
