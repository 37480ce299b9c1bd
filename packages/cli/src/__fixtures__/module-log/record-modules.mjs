// Loaded with `node --import` by troupe-startup-modules.int.test.ts: writes every module the process loads
// (one URL a line) to $TROUPE_MODULE_LOG — ES modules through a load hook, CommonJS ones from the require
// cache at exit (a require() from CommonJS passes no hook on Node 20).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const log = process.env.TROUPE_MODULE_LOG;
if (!log) throw new Error('record-modules.mjs needs TROUPE_MODULE_LOG');
register('./record-modules-hooks.mjs', import.meta.url, { data: { log } });
process.on('exit', () => {
  const required = Object.keys(createRequire(import.meta.url).cache);
  appendFileSync(log, required.map((file) => `${pathToFileURL(file).href}\n`).join(''));
});
