import { readFileSync } from 'node:fs';

/**
 * True while a process runs: it exists and is not a zombie (an exited
 * process its parent has not reaped yet; a container's init may reap
 * slowly). On Linux it reads `/proc/<pid>/stat`; elsewhere, existence only.
 *
 * @example
 * ```ts
 * await manager.stopAgent('coder');
 * expect(isProcessRunning(pid)).toBe(false);
 * ```
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
