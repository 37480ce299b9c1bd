// The workspaces' diffs, kept by the server apart from the view model: a diff can be hundreds of kilobytes, so
// pages get it on request (`GET /api/workspaces/diff?name=…`) instead of in every snapshot and event.
import type { DashboardInput } from '../state/dashboard-state';

/** One workspace's diff as the page gets it. */
export interface WorkspaceDiff {
  name: string;
  diff: string;
  /** Cut by the event (`diffTruncated`) or by the server's `limits.workspaceDiffChars`. */
  truncated: boolean;
}

/** Keeps the last `maxWorkspaces` diffs, each cut at `maxChars`. */
export function createWorkspaceDiffs(limits: { maxWorkspaces: number; maxChars: number }) {
  const diffs = new Map<string, WorkspaceDiff>();
  return {
    /**
     * Takes the diff out of a `workspace:finished` input and keeps it; returns the input the state and pages get
     * (without the diff, `diffTruncated` set when it was cut here). Other inputs pass unchanged.
     */
    take(input: DashboardInput): DashboardInput {
      if (input.type !== 'workspace:finished' || input.payload === null || typeof input.payload !== 'object') return input;
      const { diff, ...payload } = input.payload as Record<string, unknown>;
      const name = payload.name;
      if (typeof name !== 'string' || typeof diff !== 'string') return { ...input, payload };
      const truncated = payload.diffTruncated === true || diff.length > limits.maxChars;
      diffs.delete(name);
      diffs.set(name, { name, diff: diff.slice(0, limits.maxChars), truncated });
      for (const oldest of diffs.keys()) {
        if (diffs.size <= limits.maxWorkspaces) break;
        diffs.delete(oldest);
      }
      return { ...input, payload: { ...payload, diffTruncated: truncated } };
    },
    /** The kept diff of a workspace, or undefined. */
    get(name: string): WorkspaceDiff | undefined {
      return diffs.get(name);
    },
  };
}
