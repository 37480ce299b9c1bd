import { TroupeError, type TroupeErrorOptions } from '../errors/troupe-error';

const TOOL_ERROR_MARKER = Symbol.for('troupe.tool-error');

/**
 * A tool could not do what was asked (file not found, path outside the
 * workspace, command failed). Throw it from `execute`: the model sees
 * `message` as an error result and can try something else; the run goes on.
 * (Any other thrown error is reported the same way, prefixed by its name.)
 *
 * @example
 * ```ts
 * execute: async ({ id }) => {
 *   const row = await db.find(id);
 *   if (!row) throw new ToolError(`No row with id ${id}`);
 *   return row;
 * }
 * ```
 */
export class ToolError extends TroupeError {
  private readonly [TOOL_ERROR_MARKER] = true;
  /** The tool that failed, when known. */
  readonly toolName: string | undefined;

  constructor(message: string, options: TroupeErrorOptions & { toolName?: string } = {}) {
    super('TOOL_ERROR', message, options);
    this.name = 'ToolError';
    this.toolName = options.toolName;
  }

  /** True for a ToolError from any copy of `@troupe/core`. */
  static override isInstance(error: unknown): error is ToolError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[TOOL_ERROR_MARKER] === true;
  }
}
