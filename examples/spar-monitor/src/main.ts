/**
 * SPAR monitor: a Sense-Plan-Act-Reflect loop over a folder.
 *
 * Run: `pnpm --filter @troupe/example-spar-monitor start` (a demo in a temporary
 * folder with simulated activity, about 6 s), or
 * `npx tsx --conditions=@troupe/source examples/spar-monitor/src/main.ts --dir ./logs --seconds 30`.
 * Ctrl-C stops it early; either way it finishes the current iteration and cleans up.
 */
import { parseArgs } from 'node:util';
import { runSparMonitor } from './run-spar-monitor';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    report: { type: 'string' },
    seconds: { type: 'string', default: '6' },
    demo: { type: 'boolean' },
  },
});
const seconds = Number(values.seconds);
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error(`--seconds must be a positive number, got ${JSON.stringify(values.seconds)}`);
  process.exit(2);
}
const controller = new AbortController();
const onSignal = () => {
  console.log('\ninterrupted: finishing the current iteration…');
  controller.abort();
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  const result = await runSparMonitor({
    ...(values.dir ? { dir: values.dir } : {}),
    ...(values.report ? { reportFile: values.report } : {}),
    ...(values.demo ? { demo: true } : {}),
    durationMs: seconds * 1000,
    signal: controller.signal,
  });
  console.log(result.interrupted ? 'stopped (interrupted).' : 'stopped.');
} finally {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
