/**
 * True when process `pid` is running, also when it belongs to another user (`kill(pid, 0)` answers `EPERM`): how
 * markers and lock files written by a host tell whether that host is still there.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
