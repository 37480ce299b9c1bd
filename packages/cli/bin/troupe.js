#!/usr/bin/env node
// The `troupe` executable: the built command line lives in dist/bin.js.
import module from 'node:module';

// Node 22.1+ keeps the compiled code between runs, so each start compiles less (where it is missing, nothing changes).
module.enableCompileCache?.();
await import('../dist/bin.js');
