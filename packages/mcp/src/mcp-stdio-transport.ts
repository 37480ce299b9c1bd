import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets, secretValuesFromEnv } from '@troupe/core/util';
import { terminateProcessGroup, trackProcessGroup, untrackProcessGroup } from '@troupe/core/cli-turn';

/** What {@link McpStdioTransport} starts. */
export interface McpStdioTransportOptions {
  command: string;
  args?: readonly string[];
  /** Variables set for the server, over the environment it inherits. */
  env?: Readonly<Record<string, string>>;
  /**
   * `safe` (default): only `HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`
   * from the host (the MCP SDK's rule, so a third-party server sees no API
   * key it was not given); `all`: the whole host environment.
   */
  inheritEnv?: 'safe' | 'all';
  cwd?: string;
  /** How long the server gets to exit after its stdin closes, then after SIGTERM, in ms. Default 2000. */
  killGraceMs?: number;
  /** Receives the server's stderr (secret-looking env values redacted). Default: kept for error messages only. */
  onStderr?: (text: string) => void;
}

const STDERR_TAIL_CHARS = 4000;

/**
 * The MCP stdio client transport, with the server in its own process group:
 * closing it ends stdin, then terminates the whole group (SIGTERM, then
 * SIGKILL), so a server started through `npx` or a shell script leaves no
 * process behind. The group is also killed if the host process exits first.
 * Message framing is the SDK's own (`ReadBuffer`, `serializeMessage`).
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly readBuffer = new ReadBuffer();
  private stderrTail = '';
  private exited: Promise<void> | undefined;
  private closing = false;
  private readonly secrets: string[];

  constructor(private readonly options: McpStdioTransportOptions) {
    this.secrets = secretValuesFromEnv({ ...options.env });
  }

  /** OS pid of the server (also its process group id), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KB of the server's stderr, secrets redacted (for error messages). */
  get stderr(): string {
    return this.stderrTail;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('McpStdioTransport already started');
    const { command, args = [], cwd } = this.options;
    const base = this.options.inheritEnv === 'all' ? process.env : getDefaultEnvironment();
    return new Promise<void>((resolve, reject) => {
      const child = spawn(command, [...args], {
        cwd,
        env: { ...base, ...this.options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise<void>((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) trackProcessGroup(child.pid);
        resolve();
      });
      child.once('close', () => {
        if (child.pid !== undefined) untrackProcessGroup(child.pid);
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => {
        if (!this.closing) this.onerror?.(error);
      });
      child.stdout.on('data', (chunk: Buffer) => {
        this.readBuffer.append(chunk);
        this.drain();
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        const redacted = redactSecrets(text, this.secrets);
        this.stderrTail = (this.stderrTail + redacted).slice(-STDERR_TAIL_CHARS);
        this.options.onStderr?.(redacted);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('MCP server is not running'));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.closing = true;
    if (!child) return;
    const grace = this.options.killGraceMs ?? 2000;
    child.stdin.end();
    await Promise.race([this.exited, new Promise<void>((resolve) => setTimeout(resolve, grace).unref())]);
    // The whole group, even when the leader exited: `npx` and shell wrappers leave the real server as a child.
    if (child.pid !== undefined) await terminateProcessGroup(child.pid, grace);
    await this.exited;
    this.readBuffer.clear();
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}
