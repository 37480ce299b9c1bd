// Model-testing helpers (scripted ChatModel); re-exported from @troupe/core/testing.
export {};
