// Runnable agents, agent registry, executor and task manager (seed 000); re-exported from the package root.
export {};
