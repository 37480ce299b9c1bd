// Filled in by the loop work; re-exported from the package root.
export {};
