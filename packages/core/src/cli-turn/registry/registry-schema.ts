import { z } from 'zod';
import { ConfigError } from '../../errors/config-error';
import { compileToolPolicy } from '../../permissions/tool-policy';

/** Names that would corrupt a plain object if used as keys (`__proto__` sets its prototype). */
const RESERVED_AGENT_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype`, which cannot name an agent. */
export function isReservedAgentName(name: string): boolean {
  return RESERVED_AGENT_NAMES.has(name);
}

const agentNameSchema = z
  .string()
  .min(1)
  .refine((name) => !isReservedAgentName(name), { message: 'cannot name an agent (a reserved JavaScript property name); rename it' });

/** How an agent's turn completion is detected, as written in the registry. */
export const completionDetectionSchema = z.enum(['jsonl', 'idleTimeout', 'exit']);

/** Registry 1.2 `capabilities`: technical facts about a CLI, never role text. */
export const agentCapabilitiesSchema = z.looseObject({
  /** The CLI takes a system prompt on its command line. */
  supportsSystemPrompt: z.boolean(),
  /** The flag that carries it, e.g. `--append-system-prompt`. */
  systemPromptFlag: z.string().min(1).optional(),
  completionDetection: completionDetectionSchema,
  /** JSON `type`s that end a turn (with `completionDetection: 'jsonl'`). */
  completionTypes: z.array(z.string().min(1)).min(1).optional(),
  /** Idle time that ends a turn (with `'idleTimeout'`, or as a fallback). */
  idleTimeoutMs: z.number().int().positive().optional(),
});
/** Registry 1.2 capabilities. */
export type AgentCapabilities = z.infer<typeof agentCapabilitiesSchema>;

/**
 * One installed agent CLI in registry schema 1.2 (seed 001 §3). Unknown
 * fields are kept, so tools can store their own data.
 */
export const agentDefinitionSchema = z
  .looseObject({
    name: agentNameSchema,
    displayName: z.string().optional(),
    /** Adapter type to use; defaults to `name`. */
    adapter: z.string().min(1).optional(),
    /** Executable name or absolute path. */
    command: z.string().min(1),
    /** Technical arguments only: no role or system prompt text. */
    baseArgs: z.array(z.string()),
    capabilities: agentCapabilitiesSchema,
    usePty: z.boolean().optional(),
    version: z.string().optional(),
    installedAt: z.string().optional(),
    /** Model the CLI runs (`--model` / `-m`); the adapter's default otherwise. */
    model: z.string().trim().min(1, 'expected a model name').optional(),
    /** API endpoint the CLI talks to instead of the vendor's (a gateway, a local server). */
    baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8080' }).optional(),
    /**
     * Name of the environment variable that holds the CLI's API key. The key
     * itself never goes in the registry; the variable is read when the
     * adapter is built.
     */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as MY_OPENAI_KEY (the name, not the key)')
      .optional(),
    /** Extra environment of the CLI's process. Values are never printed. */
    env: z.record(z.string(), z.string()).optional(),
    /**
     * A private home folder for the CLI (its settings, sessions and state),
     * instead of the user's. A relative path is read from the registry file's folder.
     */
    home: z.string().min(1, 'expected a folder path').optional(),
    /** API retries per request (each adapter maps it to its CLI's own setting). */
    maxRetries: z.number().int('expected a whole number').min(0, 'expected 0 or more').max(100, 'expected at most 100').optional(),
    /**
     * The agent's tool policy (allow/ask/deny rules, see `ToolPolicy`): the policy object, or the path of a policy
     * file (JSON), read from the registry file's folder when relative. Adapters that cannot decide tool calls refuse it.
     */
    policy: z.union([z.string().min(1, 'expected a policy file path'), z.record(z.string(), z.unknown())], { error: 'expected a policy object or the path of a policy file' }).optional(),
  })
  .superRefine((agent, ctx) => {
    // A malformed policy is refused with the registry, naming each bad rule (`policy.deny[1]`).
    if (agent.policy !== undefined && typeof agent.policy !== 'string') {
      try {
        compileToolPolicy(agent.policy);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        for (const issue of error.issues) ctx.addIssue({ code: 'custom', path: ['policy', ...issue.path], message: issue.message });
      }
    }
    const caps = agent.capabilities;
    if (caps.completionDetection === 'jsonl' && !caps.completionTypes) {
      ctx.addIssue({
        code: 'custom',
        path: ['capabilities', 'completionTypes'],
        message: 'required when completionDetection is "jsonl" (e.g. ["result"])',
      });
    }
    if (caps.completionDetection === 'idleTimeout' && caps.idleTimeoutMs === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['capabilities', 'idleTimeoutMs'],
        message: 'required when completionDetection is "idleTimeout" (e.g. 2000)',
      });
    }
    if (caps.supportsSystemPrompt && !caps.systemPromptFlag) {
      ctx.addIssue({
        code: 'custom',
        path: ['capabilities', 'systemPromptFlag'],
        message: 'required when supportsSystemPrompt is true (e.g. "--append-system-prompt")',
      });
    }
  });
/** One agent CLI in registry schema 1.2. */
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** Registry file, schema 1.2. */
export const registryConfigSchema = z.looseObject({
  schemaVersion: z.literal('1.2'),
  agents: z.record(agentNameSchema, agentDefinitionSchema),
});
/** Registry file, schema 1.2. */
export type RegistryConfig = z.infer<typeof registryConfigSchema>;

/** One agent in the legacy schema 1.1: `args` may hold role text. */
export const legacyAgentDefinitionSchema = z.looseObject({
  name: agentNameSchema.optional(),
  displayName: z.string().optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  completion: z.string().optional(),
  endMarker: z.string().optional(),
  usePty: z.boolean().optional(),
  version: z.string().optional(),
  installedAt: z.string().optional(),
});

/** Registry file, legacy schema 1.1 (or no version). */
export const legacyRegistryConfigSchema = z.looseObject({
  schemaVersion: z.union([z.literal('1.1'), z.literal('1.0')]).optional(),
  agents: z.record(z.string(), legacyAgentDefinitionSchema),
});
/** Registry file, legacy schema 1.1. */
export type LegacyRegistryConfig = z.infer<typeof legacyRegistryConfigSchema>;
