import type { AgentStreamPart } from '@troupe/core';

type ToolCallPart = Extract<AgentStreamPart, { type: 'tool-call' }>;

/**
 * Holds a sub-agent call's `tool-call` part back from the hook observer until the call is known to run, so that
 * `subagentStart` means "the sub-agent started", not "the agent proposed one": claude-code-acp reports a `Task` call
 * before it asks permission for it. The part is released when its permission request is allowed, or just before
 * its result when it was never asked (then `subagentStart` and `subagentStop` come together); a refused call, or one
 * with no answer and no result when the turn ends, is never released, so no sub-agent hook fires for it.
 * The parts the adapter returns are not changed: only what the hooks see.
 */
export class AcpSubagentGate {
  private readonly held = new Map<string, ToolCallPart>();

  constructor(private readonly isSubagent: (part: ToolCallPart) => boolean) {}

  /** The parts the hook observer sees for one line the ACP client passed on (`json`) and the parts the parser made of it. */
  filter(json: unknown, parts: readonly AgentStreamPart[]): AgentStreamPart[] {
    const seen: AgentStreamPart[] = [];
    const answer = json as { type?: unknown; toolCallId?: unknown } | null;
    if (answer?.type === 'acp.permission' && typeof answer.toolCallId === 'string') {
      const id = answer.toolCallId;
      const refused = parts.some((part) => part.type === 'warning' && part.code === 'permission-denied' && part.toolCallId === id);
      this.release(id, refused ? undefined : seen);
    }
    for (const part of parts) {
      if (part.type === 'tool-call' && this.isSubagent(part)) {
        this.held.set(part.toolCallId, part);
        continue;
      }
      if (part.type === 'tool-result') this.release(part.toolCallId, seen);
      else if (part.type === 'turn-end' || part.type === 'session') this.held.clear();
      seen.push(part);
    }
    return seen;
  }

  /** Forgets a held call; passes its part on to `into` when given. */
  private release(toolCallId: string, into: AgentStreamPart[] | undefined): void {
    const part = this.held.get(toolCallId);
    if (part === undefined) return;
    this.held.delete(toolCallId);
    into?.push(part);
  }
}
