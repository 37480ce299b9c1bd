#!/usr/bin/env node
// The `troupe` executable.
import { runCli } from './cli-main';

const code = await runCli(process.argv.slice(2));
// Exit explicitly once output is written: an agent CLI left running by an
// interrupted turn must not keep the command alive.
process.stdout.write('', () => process.exit(code));
