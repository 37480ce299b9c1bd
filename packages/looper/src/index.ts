// Perception processors and reflection memory: plugin stages for core's AgentLoop (seed 002).
export * from './perception/index';
export * from './reflection/index';
// The loop's config file (troupe.config.toml / .json), read for core's AgentLoop (seed 002).
export * from './loop-config/index';
// The Looper graph (Coder → Review → JUDGE), the JUDGE agent and DevHub (seed 000).
export * from './looper/index';
// Its commands, snapshot, checkpoint store and texts: also the `@troupe/looper/commands` entry, which loads no zod.
export * from './commands/index';
export * from './judge/index';
export * from './devhub/index';
