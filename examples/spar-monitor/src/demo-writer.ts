import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One step of the scripted activity. */
type Step = (dir: string) => Promise<void>;

const steps: Step[] = [
  (dir) => appendFile(join(dir, 'app.log'), 'INFO server started on :8080\n'),
  (dir) => writeFile(join(dir, 'notes.md'), '# Notes\ntodo: update the docs\n'),
  (dir) => appendFile(join(dir, 'app.log'), 'ERROR payment service failed: upstream timeout\nERROR payment service failed: upstream timeout\n'),
  (dir) => appendFile(join(dir, 'app.log'), 'WARN slow query took 1200 ms, retrying\n'),
  (dir) => appendFile(join(dir, 'notes.md'), 'changed: retry policy updated\n'),
  async (dir) => {
    await writeFile(join(dir, 'scratch.tmp'), 'temporary\n');
  },
  (dir) => rm(join(dir, 'scratch.tmp'), { force: true }),
  (dir) => appendFile(join(dir, 'questions.txt'), 'How do I rotate the API keys?\n'),
  (dir) => appendFile(join(dir, 'app.log'), 'FATAL crash in worker 3: out of memory (production, urgent)\n'),
];

/**
 * Simulates activity in a folder: every `everyMs` it performs the next step
 * of a script (log lines, errors, notes, a short-lived file, a question),
 * looping. Returns a function that stops it.
 */
export function startDemoWriter(dir: string, everyMs = 250): () => Promise<void> {
  let index = 0;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    const step = steps[index++ % steps.length] as Step;
    running = running.then(() => step(dir)).catch(() => {});
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
