// The AgentLoop's config file reader (seed 002); re-exported from the package root.
export { loadLoopConfig, loopConfigFileNames, type LoadedLoopConfig, type LoadLoopConfigOptions } from './load-loop-config';
