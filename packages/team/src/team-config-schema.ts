import type { AgentOutputSchema } from '@troupe/core/cli-turn';
import { z } from 'zod';

/** Member ids double as agent role ids and `[NEXT: id]` targets: letters, digits, `_`, `.`, `-`. */
const MEMBER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Names are `[NEXT: name]` targets, so they cannot hold the marker's own punctuation. */
const MEMBER_NAME = /^[^[\]\n,]+$/;

const AI_ONLY_FIELDS = ['agentConfigId', 'systemInstruction', 'workDir', 'additionalArgs', 'env', 'isolation', 'setup', 'outputSchema'] as const;

/**
 * Where an AI member's agent works: `none` in the checkout itself (its `workDir`), `worktree` in a workspace of its
 * own (a git worktree on branch `troupe/<name>`, from the caller's `HEAD`), so members that edit code do not write
 * over each other and each hands back its own diff.
 */
export const memberIsolationSchema = z.enum(['none', 'worktree'], { error: 'expected "none" or "worktree"' });

/** What to prepare in a member's workspace before its agent starts (see `@troupe/worktree`'s `WorkspaceSetup`). */
export const workspaceSetupSchema = z.strictObject({
  /** Untracked files of the checkout to copy in, relative to it (e.g. `.env`); kept out of the workspace's diff. */
  copy: z.array(z.string().min(1, 'expected a non-empty path')).optional(),
  /** A command run in the workspace as argv, no shell (e.g. `["npm", "ci"]`); its failure fails the conversation's start. */
  command: z.array(z.string()).min(1, 'expected the program and its arguments, e.g. ["npm", "ci"]').optional(),
});

/**
 * One team member (seed 001, Team Config Schema): an AI member bound to an
 * agent adapter through `agentConfigId`, or a human member who answers
 * through `injectMessage` / `onHumanTurn`.
 */
export const teamMemberSchema = z.strictObject({
  /** Stable id: the member's agent role id and a `[NEXT: id]` target. */
  id: z.string().regex(MEMBER_ID, 'expected letters, digits, "_", "." or "-" (starting with a letter or digit)'),
  /** Short name used in conversation context (`name: content`) and as a `[NEXT: name]` target. */
  name: z.string().trim().min(1, 'expected a non-empty name').regex(MEMBER_NAME, 'a name cannot contain "[", "]", "," or a newline'),
  /** Name shown to people (UIs, the message store's `speaker`). Default: `name`. */
  displayName: z.string().trim().min(1).optional(),
  /** What the member does in the team, e.g. `tech lead`. Shown in notices and UIs. */
  role: z.string().trim().min(1, 'expected a non-empty role, e.g. "reviewer"'),
  /** `ai` members run an agent CLI; `human` members type their turns. */
  type: z.enum(['ai', 'human'], { error: 'expected "ai" or "human"' }),
  /** Position in round-robin order (lowest first). Default: the member's index in `members`. */
  order: z.number().int('expected an integer').optional(),
  /** Adapter type (`claude`, `codex`, `gemini`…) or agent registry entry this AI member runs on. */
  agentConfigId: z.string().min(1).optional(),
  /** The member's role prompt; the adapter delivers it once (flag, file or message), never the conversation. */
  systemInstruction: z.string().optional(),
  /** Working directory of the member's agent process (relative paths resolve against the team's base directory). */
  workDir: z.string().min(1).optional(),
  /** Extra CLI arguments for this member, after the adapter's own. */
  additionalArgs: z.array(z.string()).optional(),
  /** Extra environment variables for this member's agent process. Values are redacted from events and notices. */
  env: z.record(z.string(), z.string()).optional(),
  /** `worktree`: the member works in a workspace of its own for the whole conversation. Default: `settings.isolation`. */
  isolation: memberIsolationSchema.optional(),
  /** Set-up of this member's workspace. Default: `settings.setup`. */
  setup: workspaceSetupSchema.optional(),
  /**
   * Ask this member for a typed result on every turn: a JSON Schema object
   * (in `team.json`) or a zod 4 schema (in code). Its turns are typed CLI
   * turns (`AgentManager.send` with a `schema`): its reply's text is the
   * answer and the message's `object` the validated object; a reply without
   * a valid object fails the turn (`invalid-output`), never a silent success.
   */
  outputSchema: z
    .custom<AgentOutputSchema>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), 'expected a JSON Schema object (or a zod schema)')
    .optional(),
});

/** Spending limits; the conversation ends when one is reached (`token-budget` / `cost-budget`). */
export const teamBudgetSchema = z.strictObject({
  /** Input + output tokens over all AI turns (from each turn's `usage` part). */
  maxTokens: z.number().int().positive().optional(),
  /** US dollars over all AI turns, where the CLI reports cost (Claude Code does). */
  maxCostUsd: z.number().positive().optional(),
});

/** What happens when an AI member's turn fails (CLI error, crash, timeout, empty reply). */
export const memberErrorPolicySchema = z.enum(['continue', 'stop'], { error: 'expected "continue" or "stop"' });

/** Conversation settings; every field has a default. */
export const teamSettingsSchema = z.strictObject({
  /** How many earlier messages go in an agent's `[CONTEXT]` section. Default 5. */
  contextMessageCount: z.number().int().nonnegative().default(5),
  /** Turn cap: the conversation ends (`max-turns`) after this many member turns. Default 50. */
  maxTurns: z.number().int().positive().default(50),
  /** Per-turn timeout of an AI member, in ms; a member that never answers fails its turn. Default 600 000 (10 min). */
  turnTimeoutMs: z.number().int().positive().default(600_000),
  /** Token / cost budget. Default: none. */
  budget: teamBudgetSchema.optional(),
  /**
   * `continue` (default): report the failure in the conversation and pass the
   * turn on by round-robin; `stop`: end the conversation (`member-failed`).
   */
  onMemberError: memberErrorPolicySchema.default('continue'),
  /** With `continue`, end the conversation (`too-many-failures`) after this many failed turns in a row. Default 3. */
  maxConsecutiveFailures: z.number().int().positive().default(3),
  /** Message store channel the conversation is written to. Default `team`. */
  channelId: z.string().min(1).default('team'),
  /** Team-wide default of the AI members' `isolation`. Default: `none`. */
  isolation: memberIsolationSchema.optional(),
  /** Team-wide default of the members' workspace `setup`. */
  setup: workspaceSetupSchema.optional(),
});

/**
 * The team configuration (`.troupe/team.json`): who talks, on which agent,
 * and how the conversation is bounded.
 *
 * @example
 * ```json
 * {
 *   "name": "api-review",
 *   "task": "Design the /users endpoint",
 *   "members": [
 *     { "id": "max", "name": "Max", "role": "tech lead", "type": "ai", "agentConfigId": "claude",
 *       "systemInstruction": "You are Max, a tech lead." },
 *     { "id": "sarah", "name": "Sarah", "role": "reviewer", "type": "ai", "agentConfigId": "codex" },
 *     { "id": "you", "name": "You", "role": "product owner", "type": "human" }
 *   ],
 *   "settings": { "maxTurns": 30, "budget": { "maxCostUsd": 2 } }
 * }
 * ```
 */
export const teamConfigSchema = z
  .strictObject({
    /** Schema version of this file. */
    schemaVersion: z.literal('1.0').optional(),
    /** Team name, used in events and notices. */
    name: z.string().trim().min(1, 'expected a non-empty team name'),
    description: z.string().optional(),
    /** Opening message when `start()` is given none. */
    task: z.string().optional(),
    members: z.array(teamMemberSchema).min(1, 'a team needs at least one member'),
    settings: teamSettingsSchema.prefault({}),
  })
  .superRefine((config, context) => {
    const seen = { id: new Map<string, number>(), name: new Map<string, number>(), order: new Map<number, number>() };
    const nameReported = new Set<number>();
    config.members.forEach((member, index) => {
      const at = (field: string) => ['members', index, field];
      if (member.type === 'ai' && member.agentConfigId === undefined) {
        context.addIssue({
          code: 'custom',
          path: at('agentConfigId'),
          message: `AI member "${member.id}" needs an agentConfigId (an adapter type such as "claude", or an agent registry entry)`,
        });
      }
      if (member.type === 'human') {
        for (const field of AI_ONLY_FIELDS) {
          if (member[field] !== undefined) {
            context.addIssue({ code: 'custom', path: at(field), message: `only AI members take ${field}; "${member.id}" is human` });
          }
        }
      }
      const checks: Array<[keyof typeof seen, string | number, string]> = [
        ['id', member.id.toLowerCase(), 'id'],
        ['name', member.name.toLowerCase(), 'name'],
        ['order', member.order ?? index, 'order'],
      ];
      for (const [kind, key, field] of checks) {
        const map = seen[kind] as Map<string | number, number>;
        const first = map.get(key);
        if (first !== undefined) {
          if (field === 'name') nameReported.add(index);
          context.addIssue({
            code: 'custom',
            path: at(field),
            message: `duplicate ${field} ${JSON.stringify(key)} (also members[${first}]); ${field === 'order' ? 'round-robin order must be unambiguous' : `[NEXT: ${field}] must name one member`}`,
          });
        } else map.set(key, index);
      }
    });
    const ids = new Map(config.members.map((member) => [member.id.toLowerCase(), member.id]));
    config.members.forEach((member, index) => {
      const owner = ids.get(member.name.toLowerCase());
      if (owner !== undefined && owner !== member.id && !nameReported.has(index)) {
        context.addIssue({
          code: 'custom',
          path: ['members', index, 'name'],
          message: `name "${member.name}" is the id of member "${owner}"; [NEXT: ${member.name}] would be ambiguous`,
        });
      }
    });
  });

/** A team configuration as written (defaults not applied). */
export type TeamConfigInput = z.input<typeof teamConfigSchema>;
/** A validated team configuration, defaults applied. */
export type TeamConfig = z.output<typeof teamConfigSchema>;
/** A member as written in the configuration. */
export type TeamMemberConfig = z.output<typeof teamMemberSchema>;
/** Validated conversation settings. */
export type TeamSettings = z.output<typeof teamSettingsSchema>;
/** Token / cost budget. */
export type TeamBudget = z.output<typeof teamBudgetSchema>;
/** `none` or `worktree`. */
export type MemberIsolation = z.output<typeof memberIsolationSchema>;
/** Set-up of a member's workspace. */
export type TeamWorkspaceSetup = z.output<typeof workspaceSetupSchema>;
/** `continue` or `stop` on a failed AI turn. */
export type MemberErrorPolicy = z.output<typeof memberErrorPolicySchema>;

/** A member with its defaults resolved (`displayName`, `order`), as the coordinator uses it. */
export interface TeamMember extends TeamMemberConfig {
  displayName: string;
  order: number;
}
