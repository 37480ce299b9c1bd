import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { decideToolUse, deferredWithoutStoreMessage, type EventBus, type ToolPermissionOptions } from '@troupe/core';
import type { AcpPermissionAnswer, AcpPermissionRequest } from './acp-permissions';
import { acpToolName } from './acp-stream-parser';
import { acpSharedToolName, acpToolKind, decideAcpToolUse } from './acp-tool-use';

/** Who asks, for the shared `ToolUseRequest` (as {@link decideAcpToolUse} takes it). */
export interface AcpDecisionContext {
  adapterId: string;
  agent?: string;
  /** The session's working directory: file accesses through the client are confined to it. */
  workspace?: string;
  signal: AbortSignal;
  bus?: EventBus;
}

/** A file access of the agent through the client: its ACP params, with the tool call that names the path when one does. */
export interface AcpFileQuestion {
  method: 'fs/read_text_file' | 'fs/write_text_file';
  params: Record<string, unknown>;
}

/** The host's answer to one file access: the path (and, for a write, the content) to use, or the refusal. */
export type AcpFileAccessAnswer = { outcome: 'allow'; path: string; content?: string } | { outcome: 'deny'; message: string };

/** A write the host already allowed through `session/request_permission`, waiting for its `fs/write_text_file`. */
interface Grant {
  toolCallId: string;
  /** Where the decided call writes (a changed input may move it). */
  path: string;
  /** The decided content, when the decision changed it. */
  content?: string;
}

/**
 * Tools known to write `{ file_path, content }` through the client when it offers `fs.writeTextFile`, so a changed
 * input can be run: claude-code-acp 0.16.2's `Write` (proven by its int test). Others' changed inputs are refused.
 */
const CHANGEABLE_WRITE_TOOLS = new Set(['mcp__acp__Write']);

/** The file an edit-kind permission request changes (its input's `file_path`, else its first location). */
function editedPath(request: AcpPermissionRequest): string | undefined {
  if (acpToolKind(request) !== 'edit') return undefined;
  return (isObject(request.input) ? stringOf(request.input.file_path) : undefined) ?? request.locations[0]?.path;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Serves the agent's file accesses through the client (`fs/read_text_file`, `fs/write_text_file`, advertised as
 * `clientCapabilities.fs` when `permissions` is set) with the shared decision (`decideToolUse`), and keeps the
 * permission requests and the writes that follow them to ONE decision per tool call:
 *
 * - an allowed `session/request_permission` of kind edit (claude-code-acp's `Write`/`Edit`, Gemini CLI's
 *   `write_file`) leaves a grant for its file in its session; the `fs/write_text_file` of that file takes the grant
 *   (no second question), and reads of that file while the grant is open (an `Edit` reads the file first) are part
 *   of the same call;
 * - any other file access is a call of its own, decided before it runs: kind `read` or `edit`, target the path, the
 *   tool name of the agent's tool call that names the path (`Read`), else `read_text_file` / `write_text_file`;
 * - an allowed answer with a changed input is what runs: a changed `file_path` (and `content`) of claude-code-acp's
 *   `Write` or of a file access is the path and content the client uses (other changed inputs are refused);
 * - every path, asked or changed, must be absolute and inside the session's working directory (symbolic links
 *   resolved), else the access is refused with a message naming the path.
 */
export class AcpClientFs {
  private readonly grants = new Map<string, Grant[]>();
  private accesses = 0;
  /**
   * The real path of each session folder, resolved at its first file access and kept: the folder's own links are
   * not re-read per access (a file access is decided in the agent's time). A folder swapped for a link elsewhere
   * afterwards does not move the confinement: paths there are refused (fail closed).
   */
  private readonly roots = new Map<string, string>();

  constructor(private readonly permissions: ToolPermissionOptions) {}

  /** Decides a permission request; an allowed edit of a file leaves a grant for the write that follows it. */
  decidePermission(request: AcpPermissionRequest, context: AcpDecisionContext): Promise<AcpPermissionAnswer> {
    const asked = editedPath(request);
    return decideAcpToolUse(request, this.permissions, {
      ...context,
      runChangedInput: (input) => CHANGEABLE_WRITE_TOOLS.has(request.toolName) && asked !== undefined && isObject(input) && stringOf(input.file_path) !== undefined && typeof input.content === 'string',
      onAllow: (input) => {
        if (asked === undefined) return;
        const changed = input !== request.input && isObject(input);
        const grant: Grant = {
          toolCallId: request.toolCallId,
          path: changed ? (stringOf(input.file_path) ?? asked) : asked,
          ...(changed && typeof input.content === 'string' ? { content: input.content } : {}),
        };
        const key = grantKey(request.sessionId, asked);
        this.grants.set(key, [...(this.grants.get(key) ?? []), grant]);
      },
    });
  }

  /** Decides one file access of the agent through the client: the path and content to use, or why not. */
  async decideFileAccess(question: AcpFileQuestion, context: AcpDecisionContext): Promise<AcpFileAccessAnswer> {
    const { method, params } = question;
    const write = method === 'fs/write_text_file';
    const path = stringOf(params.path);
    if (path === undefined) return { outcome: 'deny', message: `${method} needs a "path"` };
    if (write && typeof params.content !== 'string') return { outcome: 'deny', message: 'fs/write_text_file needs a string "content"' };
    const sessionId = stringOf(params.sessionId) ?? '';
    const workspace = context.workspace ?? process.cwd();
    const key = grantKey(sessionId, path);
    const granted = this.grants.get(key)?.[0];
    if (granted) {
      if (write) {
        const rest = this.grants.get(key)?.slice(1) ?? [];
        if (rest.length > 0) this.grants.set(key, rest);
        else this.grants.delete(key);
      }
      const outside = outsideOf(this.root(workspace), workspace, granted.path);
      if (outside) return { outcome: 'deny', message: outside };
      return { outcome: 'allow', path: granted.path, ...(write ? { content: granted.content ?? (params.content as string) } : {}) };
    }
    const outside = outsideOf(this.root(workspace), workspace, path);
    if (outside) return { outcome: 'deny', message: outside };
    const toolCall = isObject(params.toolCall) ? params.toolCall : undefined;
    const toolCallId = stringOf(toolCall?.toolCallId);
    const input: Record<string, unknown> = write
      ? { file_path: path, content: params.content }
      : { file_path: path, ...(typeof params.line === 'number' ? { line: params.line } : {}), ...(typeof params.limit === 'number' ? { limit: params.limit } : {}) };
    const verdict = await decideToolUse(
      {
        id: toolCallId ?? `fs-${++this.accesses}`,
        agent: context.agent ?? context.adapterId,
        adapter: context.adapterId,
        tool: toolCallId !== undefined ? acpSharedToolName(acpToolName({ toolCallId, ...(typeof toolCall?.kind === 'string' ? { kind: toolCall.kind } : {}), _meta: toolCall?._meta })) : write ? 'write_text_file' : 'read_text_file',
        kind: write ? 'edit' : 'read',
        input,
        target: path,
        workspace,
        ...(sessionId !== '' ? { sessionId } : {}),
        signal: context.signal,
      },
      { ...this.permissions, ...(context.bus ? { bus: context.bus } : {}) },
    );
    if (verdict.behavior === 'deny') return { outcome: 'deny', message: verdict.message };
    if (verdict.behavior === 'defer') return { outcome: 'deny', message: deferredWithoutStoreMessage('file access') };
    const decided = isObject(verdict.input) ? verdict.input : input;
    const usePath = stringOf(decided.file_path) ?? path;
    if (usePath !== path) {
      const moved = outsideOf(this.root(workspace), workspace, usePath);
      if (moved) return { outcome: 'deny', message: moved };
    }
    return write ? { outcome: 'allow', path: usePath, content: typeof decided.content === 'string' ? decided.content : (params.content as string) } : { outcome: 'allow', path: usePath };
  }

  /** The real path of a session folder (the folder as given when it does not exist), resolved once. */
  private root(workspace: string): string {
    let root = this.roots.get(workspace);
    if (root === undefined) {
      try {
        root = realpathSync.native(workspace);
      } catch {
        root = resolve(workspace);
      }
      this.roots.set(workspace, root);
    }
    return root;
  }
}

function grantKey(sessionId: string, path: string): string {
  return `${sessionId}\0${path}`;
}

/** Why `path` may not be touched from `workspace` (its real path `root`) — not absolute, or outside it once links are resolved — or undefined. */
function outsideOf(root: string, workspace: string, path: string): string | undefined {
  if (!isAbsolute(path)) return `The file access was refused: ${JSON.stringify(path)} is not an absolute path.`;
  const inside = relative(root, realpathOfNearest(resolve(path)));
  if (inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside))) return undefined;
  return `The file access was refused: ${path} is outside the session's working directory (${workspace}).`;
}

/**
 * The real path of `path`, resolving its deepest existing ancestor (a file to be created does not exist yet).
 * Synchronous on purpose: a few `realpath` calls cost microseconds, a trip through libuv's thread pool would make the
 * agent's file access wait behind whatever the event loop is doing meanwhile.
 */
function realpathOfNearest(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realpathOfNearest(parent), basename(path));
  }
}
