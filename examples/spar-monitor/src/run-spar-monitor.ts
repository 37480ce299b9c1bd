import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentLoop, type LoopStats } from '@troupe/core/agent-loop';
import { createFailureAnalysisReflector, createPerceptionStages, createReflectionMemory, loadLoopConfig } from '@troupe/loop-stages';
import { startDemoWriter } from './demo-writer';
import { createFolderSensor } from './folder-sensor';
import { createSparPlanner } from './spar-planner';
import { formatStats, printLoopProgress } from './spar-progress';
import { createAppendReportTool, createFileStatsTool } from './spar-tools';

/** Options of {@link runSparMonitor}. */
export interface SparMonitorOptions {
  /** Folder to watch. Default: a new temporary folder with simulated activity, removed at the end. */
  dir?: string;
  /** Markdown report to append to. Default: `report.md` next to the temporary folder (or in the system temp dir). */
  reportFile?: string;
  /** How long to run before stopping by itself, in ms. Default 6000. */
  durationMs?: number;
  /** Simulate activity in the folder. Default: only when `dir` is not given. */
  demo?: boolean;
  /** Where progress lines go. Default `console.log`. */
  print?: (line: string) => void;
  /** Stops early (Ctrl-C). */
  signal?: AbortSignal;
}

/** What a run leaves behind. */
export interface SparMonitorResult {
  stats: LoopStats;
  /** The report's content at the end of the run. */
  report: string;
  reportFile: string;
  /** Experiences in the reflection memory at the end. */
  experiences: number;
  /** Whether it stopped because of the signal. */
  interrupted: boolean;
}

/**
 * Runs the SPAR monitor: an AgentLoop that senses a folder, processes the
 * perceptions (dedupe, classify, intent, priority, fusion), plans a triage,
 * acts (file stats and a report section, in parallel), and reflects into a
 * reflection memory, printing every phase as it completes. Stops after
 * `durationMs` or when `signal` aborts, then cleans up.
 */
export async function runSparMonitor(options: SparMonitorOptions = {}): Promise<SparMonitorResult> {
  const print = options.print ?? ((line: string) => console.log(line));
  const root = options.dir ? undefined : await mkdtemp(join(tmpdir(), 'spar-monitor-'));
  const dir = options.dir ? resolve(options.dir) : join(root as string, 'watched');
  await mkdir(dir, { recursive: true });
  const reportFile = resolve(options.reportFile ?? join(root ?? tmpdir(), root ? 'report.md' : `spar-report-${process.pid}.md`));
  await writeFile(reportFile, `# SPAR monitor report for ${dir}\n`);
  const loaded = await loadLoopConfig({ cwd: process.cwd() });
  const loop = new AgentLoop({
    id: 'spar-monitor',
    config: loaded?.config,
    // Quick for a demo unless troupe.config.toml/.json says otherwise: 0.2 s when busy, 1 s when quiet.
    interval: loaded?.config.agent?.loop_interval === undefined ? { mode: 'adaptive', minSeconds: 0.2, maxSeconds: 1, manyPerceptions: 5 } : undefined,
    stuckThresholdMs: 2000,
    eventSummary: { maxArrayItems: 100 },
    health: { maxConsecutiveFailures: 3, action: 'recover' },
  });
  const memory = createReflectionMemory({ store: loop.store, maxExperiences: 200 });
  loop.use(
    createFolderSensor({ dir, ignore: [reportFile] }),
    ...createPerceptionStages({ dedupe: { windowMs: 2000 }, fusion: { windowMs: 5000 } }),
    createSparPlanner(),
    createFileStatsTool(dir),
    createAppendReportTool(reportFile),
    memory,
    createFailureAnalysisReflector(),
  );
  const stopPrinting = printLoopProgress(loop, print);
  print(`SPAR monitor: watching ${dir} (interval ${loop.intervalDescription}${loaded ? ` from ${loaded.path}` : ''}), report: ${reportFile}`);
  const stopWriter = options.demo ?? !options.dir ? startDemoWriter(dir) : async () => {};
  let interrupted = false;
  try {
    await loop.start();
    await new Promise<void>((done) => {
      const timer = setTimeout(done, options.durationMs ?? 6000);
      options.signal?.addEventListener(
        'abort',
        () => {
          interrupted = true;
          clearTimeout(timer);
          done();
        },
        { once: true },
      );
      if (options.signal?.aborted) {
        interrupted = true;
        clearTimeout(timer);
        done();
      }
    });
  } finally {
    await stopWriter();
    if (loop.state !== 'idle' && loop.state !== 'stopped') await loop.stop({ signal: AbortSignal.timeout(5000) });
    stopPrinting();
  }
  const stats = loop.stats();
  for (const line of formatStats(stats)) print(line);
  const report = await readFile(reportFile, 'utf8');
  const experiences = await memory.size();
  print(`experiences remembered: ${experiences}; report: ${report.split('\n').length} lines`);
  if (root) await rm(root, { recursive: true, force: true });
  return { stats, report, reportFile, experiences, interrupted };
}
