#!/usr/bin/env node
// The `troupe` executable: the built command line lives in dist/bin.js.
import '../dist/bin.js';
