// A host process that creates `count` workspaces at once, removes them, and prints the failures and bases as JSON:
// several of these at once race on the same repository's git locks from different processes.
import { createWorkspace, removeWorkspace } from '../index';

const [repo, prefix, count] = process.argv.slice(2) as [string, string, string];
const failures: string[] = [];
const bases: string[] = [];
const settled = await Promise.allSettled(Array.from({ length: Number(count) }, (_, index) => createWorkspace({ repo, name: `${prefix}-${index}` })));
const made = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : (failures.push(String(outcome.reason)), [])));
for (const ws of made) bases.push(ws.baseCommit);
for (const outcome of await Promise.allSettled(made.map((ws) => removeWorkspace(ws)))) if (outcome.status === 'rejected') failures.push(String(outcome.reason));
process.stdout.write(`${JSON.stringify({ made: made.length, failures, bases: [...new Set(bases)] })}\n`);
