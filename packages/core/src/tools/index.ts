// Filled in by the tools work; re-exported from the package root.
export {};
