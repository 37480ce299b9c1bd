import { z } from 'zod';
import { ConfigError } from '../errors/config-error';
import { TOOL_KINDS, type ToolKind, type ToolUseRequest } from './tool-use-request';

/** What a call that no rule names gets: `ask` (the `canUseTool` callback; deny when there is none), `allow` or `deny`. */
export type ToolPolicyDefault = 'ask' | 'allow' | 'deny';

/**
 * Allow, ask and deny rules for tool calls, the same for every agent (a policy file holds one). A rule is a tool
 * name (`Write`, `write_file`), a glob over names (`mcp__github__*`), or a kind (`kind:edit`), optionally with a
 * glob over the call's target in parentheses: `Bash(git *)`, `kind:edit(src/*)`, `kind:fetch(https://docs.*)`.
 * `*` matches any characters (`/` too), `?` one. Precedence: deny, then ask, then allow, then `default`; so an
 * allow-list never lets other tools bypass the callback.
 *
 * @example
 * ```json
 * { "version": 1, "default": "ask", "deny": ["kind:fetch", "Bash(rm *)"], "allow": ["kind:read", "mcp__docs__*"],
 *   "reasons": { "kind:fetch": "no network in this project" } }
 * ```
 */
export interface ToolPolicy {
  /** Rules whose calls are refused. */
  deny?: readonly string[];
  /** Rules whose calls go to `canUseTool` even when an allow rule matches too. */
  ask?: readonly string[];
  /** Rules whose calls run without asking. */
  allow?: readonly string[];
  /** For calls no rule names. Default `'ask'`. */
  default?: ToolPolicyDefault;
  /** What the model is told when a deny rule refuses a call, by rule. */
  reasons?: Readonly<Record<string, string>>;
}

/** A policy rule, parsed. */
interface ParsedRule {
  text: string;
  kind?: ToolKind;
  name?: RegExp;
  target?: RegExp;
}

const RULE_SHAPE = /^(?<head>[^()]+?)(?:\((?<target>.*)\))?$/s;

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** Parses one rule; returns a message saying what is wrong with it instead when it is malformed. */
function parseRule(text: string): ParsedRule | string {
  if (typeof text !== 'string' || text.trim() === '') return 'a rule must be a non-empty string';
  const match = RULE_SHAPE.exec(text.trim());
  if (!match?.groups) return `"${text}" is not a rule (expected Name, Name(target glob), kind:KIND or kind:KIND(target glob))`;
  const head = match.groups.head!.trim();
  const target = match.groups.target;
  if (target !== undefined && target.trim() === '') return `"${text}" has an empty target in its parentheses`;
  const rule: ParsedRule = { text, ...(target !== undefined ? { target: globToRegExp(target.trim()) } : {}) };
  if (head.startsWith('kind:')) {
    const kind = head.slice('kind:'.length) as ToolKind;
    if (!TOOL_KINDS.includes(kind)) return `"${text}" names the unknown kind "${kind}" (one of ${TOOL_KINDS.join(', ')})`;
    return { ...rule, kind };
  }
  if (/\s/.test(head)) return `"${text}" has a space in its tool name`;
  return { ...rule, name: globToRegExp(head) };
}

function ruleMatches(rule: ParsedRule, request: Pick<ToolUseRequest, 'tool' | 'kind' | 'target'>): boolean {
  if (rule.kind !== undefined && rule.kind !== request.kind) return false;
  if (rule.name !== undefined && !rule.name.test(request.tool)) return false;
  if (rule.target !== undefined) return request.target !== undefined && rule.target.test(request.target);
  return true;
}

const ruleListSchema = z.array(z.string()).optional();

/** The JSON schema of a policy file (zod). */
export const toolPolicySchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).optional(),
    default: z.enum(['ask', 'allow', 'deny']).optional(),
    deny: ruleListSchema,
    ask: ruleListSchema,
    allow: ruleListSchema,
    reasons: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** A checked policy: {@link matchToolPolicy} decides calls with it. */
export interface CompiledToolPolicy {
  /** The policy as given. */
  readonly policy: ToolPolicy;
  /** @internal */
  readonly rules: { readonly deny: readonly ParsedRule[]; readonly ask: readonly ParsedRule[]; readonly allow: readonly ParsedRule[] };
}

/**
 * Checks a policy (an object, or the parsed JSON of a policy file) and compiles its rules.
 *
 * @param source Named in errors: the file path, or a description (`'the looper options'`).
 * @throws ConfigError naming every malformed field and rule by its path (`deny[1]: "Bash(rm *" is not a rule…`).
 */
export function compileToolPolicy(value: unknown, source = 'the tool policy'): CompiledToolPolicy {
  const parsed = toolPolicySchema.safeParse(value);
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
  const policy = parsed.data;
  const issues: { path: (string | number)[]; message: string }[] = [];
  const compile = (list: 'deny' | 'ask' | 'allow'): ParsedRule[] =>
    (policy[list] ?? []).flatMap((text, index) => {
      const rule = parseRule(text);
      if (typeof rule === 'string') {
        issues.push({ path: [list, index], message: rule });
        return [];
      }
      return [rule];
    });
  const rules = { deny: compile('deny'), ask: compile('ask'), allow: compile('allow') };
  for (const key of Object.keys(policy.reasons ?? {})) {
    if (!(policy.deny ?? []).includes(key)) issues.push({ path: ['reasons', key], message: `names no rule of "deny"` });
  }
  if (issues.length > 0) throw new ConfigError(source, issues);
  return { policy, rules };
}

/** What the policy alone says about a call, and the rule that said it. */
export interface ToolPolicyMatch {
  /** `ask` means: the `canUseTool` callback decides. */
  behavior: 'allow' | 'deny' | 'ask';
  /** The rule that matched; absent when the policy's `default` applied. */
  rule?: string;
  /** For a deny: what the model is told. */
  message?: string;
}

/** Applies a compiled policy to a call: deny, then ask, then allow rules, then the default. */
export function matchToolPolicy(compiled: CompiledToolPolicy, request: Pick<ToolUseRequest, 'tool' | 'kind' | 'target'>): ToolPolicyMatch {
  const deny = compiled.rules.deny.find((rule) => ruleMatches(rule, request));
  if (deny) return { behavior: 'deny', rule: deny.text, message: compiled.policy.reasons?.[deny.text] ?? `The tool call was refused by the policy rule "${deny.text}".` };
  const ask = compiled.rules.ask.find((rule) => ruleMatches(rule, request));
  if (ask) return { behavior: 'ask', rule: ask.text };
  const allow = compiled.rules.allow.find((rule) => ruleMatches(rule, request));
  if (allow) return { behavior: 'allow', rule: allow.text };
  const fallback = compiled.policy.default ?? 'ask';
  return fallback === 'deny' ? { behavior: 'deny', message: 'The tool call was refused: the policy allows no tool it does not name.' } : { behavior: fallback };
}
