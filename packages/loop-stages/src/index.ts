// Perception processors and reflection memory: plugin stages for core's AgentLoop (seed 002).
export * from './perception/index';
export * from './reflection/index';
// The loop's config file (troupe.config.toml / .json), read for core's AgentLoop (seed 002).
export * from './loop-config/index';
