// Filled in by the model work; re-exported from the package root.
export {};
