// devhub area of @troupe/looper; re-exported from the package root.
export {};
