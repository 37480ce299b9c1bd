/**
 * Why a run stopped: the model answered without calling a tool (`turn-end`),
 * wrote the end marker (`end-marker`), a tool ended it (`task-finish`), or
 * the iteration cap cut it while the model still wanted tools
 * (`iteration-limit`).
 */
export type AgentRunnerStopReason = 'turn-end' | 'end-marker' | 'task-finish' | 'iteration-limit';
