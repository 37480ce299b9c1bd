/**
 * Payload schemas of the agent loop's bus events (`loop:*`), merged into the
 * SDK's event map. Filled in by the AgentLoop work.
 */
export const loopEventSchemas = {} as const;
