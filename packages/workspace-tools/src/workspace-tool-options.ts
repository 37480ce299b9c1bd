import { isAbsolute } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import type { ToolContext } from '@troupe/core';
import { ToolError } from '@troupe/core';

/** Settings every workspace tool takes. */
export interface WorkspaceToolOptions {
  /**
   * Directory the tool is confined to. When omitted, the tool uses
   * `context.workspaceRoot` from the runner (`runToolLoop({ workspaceRoot })`),
   * and fails (as a tool error) when there is none.
   */
  root?: string;
}

/** @internal Checks a factory's `root` option. */
export function checkRootOption(options: WorkspaceToolOptions | undefined, factory: string): void {
  const root = options?.root;
  if (root !== undefined && (typeof root !== 'string' || !isAbsolute(root))) {
    throw new InvalidArgumentError(`${factory}.root`, `expected an absolute directory path, got ${JSON.stringify(root)}`);
  }
}

/** @internal The root a call is confined to. */
export function workspaceRootFor(options: WorkspaceToolOptions | undefined, context: ToolContext): string {
  const root = options?.root ?? context.workspaceRoot;
  if (!root) throw new ToolError('No workspace root is configured for this tool');
  return root;
}
