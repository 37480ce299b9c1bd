/**
 * Payload schemas of the runnable-agent, executor and task bus events
 * (`task:*`, `executor:*`), merged into the SDK's event map.
 */
export const agentEventSchemas = {} as const;
