import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { AcpFileAccessAnswer } from './acp-client-fs';

/** The client file methods an agent may call when the client advertises `clientCapabilities.fs`. */
export const ACP_CLIENT_FS_METHODS = ['fs/read_text_file', 'fs/write_text_file'] as const;

/** One agent request the client answers: a permission request, or a file access through the client. */
export type AcpClientRequest =
  | { method: 'session/request_permission'; params: AcpPermissionParams }
  | { method: 'fs/read_text_file'; params: AcpReadParams }
  | { method: 'fs/write_text_file'; params: AcpWriteParams };

// The fields the client relies on, checked as the SDK's client checked them (ACP's schema); other fields pass as sent.
const permissionParams = z.looseObject({
  sessionId: z.string(),
  toolCall: z.looseObject({ toolCallId: z.string() }),
  options: z.array(z.looseObject({ optionId: z.string(), name: z.string(), kind: z.enum(['allow_once', 'allow_always', 'reject_once', 'reject_always']) })),
});
const readParams = z.looseObject({ sessionId: z.string(), path: z.string(), line: z.number().int().min(0).nullish(), limit: z.number().int().min(0).nullish() });
const writeParams = z.looseObject({ sessionId: z.string(), path: z.string(), content: z.string() });

/** `session/request_permission` params (ACP), as checked. */
export type AcpPermissionParams = z.infer<typeof permissionParams>;
/** `fs/read_text_file` params (ACP), as checked. */
export type AcpReadParams = z.infer<typeof readParams>;
/** `fs/write_text_file` params (ACP), as checked. */
export type AcpWriteParams = z.infer<typeof writeParams>;

const schemas = { 'session/request_permission': permissionParams, 'fs/read_text_file': readParams, 'fs/write_text_file': writeParams } as const;

/**
 * The agent request `method`/`params` as the client serves it, or the JSON-RPC error the agent gets for it: an
 * unknown method is "Method not found", params that break ACP's schema are "Invalid params" naming each bad field
 * (never echoing its value).
 */
export function checkAcpClientRequest(method: string, params: unknown): { ok: true; request: AcpClientRequest } | { ok: false; error: RequestError } {
  if (!Object.hasOwn(schemas, method)) return { ok: false, error: RequestError.methodNotFound(method) };
  const parsed = schemas[method as keyof typeof schemas].safeParse(params);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'params'}: ${issue.message}`);
    return { ok: false, error: RequestError.invalidParams({ fields }, fields.join('; ')) };
  }
  return { ok: true, request: { method, params: parsed.data } as AcpClientRequest };
}

/**
 * Files up to this size are read and written synchronously: microseconds of blocking, where a trip through libuv's
 * thread pool would make the agent wait behind whatever the event loop is doing meanwhile (parsing its updates).
 */
const SYNC_FILE_BYTES = 1024 * 1024;

/**
 * Carries out a file access the host decided: writes (creating folders) or reads the decided path — a line range
 * when asked. A refusal is JSON-RPC error -32001 `Permission denied: <reason>` (the agent tells its model), a
 * missing file ACP's "Resource not found", except for the read of an edit call that is running (Gemini CLI's
 * `write_file` reads the file it is about to create): that file is empty so far.
 *
 * @throws RequestError the JSON-RPC error the agent gets.
 */
export async function serveAcpFileAccess(
  request: Extract<AcpClientRequest, { method: (typeof ACP_CLIENT_FS_METHODS)[number] }>,
  answer: AcpFileAccessAnswer,
  toolCall: { kind?: unknown; status?: unknown } | undefined,
): Promise<Record<string, unknown>> {
  if (answer.outcome === 'deny') throw new RequestError(-32001, `Permission denied: ${answer.message}`);
  if (request.method === 'fs/write_text_file') {
    const content = answer.content ?? request.params.content;
    mkdirSync(dirname(answer.path), { recursive: true });
    if (content.length <= SYNC_FILE_BYTES / 4) writeFileSync(answer.path, content, 'utf8');
    else await writeFile(answer.path, content, 'utf8');
    return {};
  }
  let content: string;
  try {
    content = statSync(answer.path).size <= SYNC_FILE_BYTES ? readFileSync(answer.path, 'utf8') : await readFile(answer.path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === 'ENOENT') {
      if (toolCall?.kind === 'edit' && toolCall.status === 'in_progress') return { content: '' };
      throw RequestError.resourceNotFound(answer.path);
    }
    throw new RequestError(-32603, `Cannot read ${answer.path}: ${(error as Error)?.message ?? String(error)}`);
  }
  const { line, limit } = request.params;
  if (line != null || limit != null) {
    const lines = content.split('\n');
    const start = Math.max(0, (line ?? 1) - 1);
    content = lines.slice(start, limit != null ? start + limit : undefined).join('\n');
  }
  return { content };
}
