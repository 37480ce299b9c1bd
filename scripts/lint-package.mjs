#!/usr/bin/env node
// lint-package.mjs [package dir]: lints a package as it is published. Packs it with pnpm, as `changeset publish`
// does (prepack strips the private `@troupe/source` condition, `workspace:` ranges become versions), then runs
// `publint --strict` and `attw` (its default profile: node10, node16 from CJS and ESM, bundler) on that tarball.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PNPM_VERSION = '10.34.9';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The command that runs pnpm: the pnpm running this script when there is one, else `npx -y pnpm@…`. */
function pnpmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath) && /\.c?js$/.test(execPath)) return [process.execPath, execPath];
  return ['npx', '-y', `pnpm@${PNPM_VERSION}`];
}

/** The CLI script of a root devDependency (`bin` entry `name`), read from `node_modules/<package>`. */
function binScript(packageName, name) {
  const folder = join(root, 'node_modules', packageName);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  return join(folder, typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name]);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const dir = resolve(process.argv[2] ?? process.cwd());
const destination = mkdtempSync(join(tmpdir(), 'troupe-pack-'));
let status = 1;
try {
  const [pnpm, ...pnpmArgs] = pnpmCommand();
  status = run(pnpm, [...pnpmArgs, 'pack', '--pack-destination', destination], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (status !== 0) throw new Error(`pnpm pack failed in ${dir}`);
  const tarball = readdirSync(destination).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball for ${dir}`);
  const path = join(destination, tarball);
  status = run(process.execPath, [binScript('publint', 'publint'), '--strict', path], { cwd: dir });
  if (status === 0) status = run(process.execPath, [binScript('@arethetypeswrong/cli', 'attw'), path], { cwd: dir });
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  status = status === 0 ? 1 : status;
} finally {
  rmSync(destination, { recursive: true, force: true });
}
process.exit(status);
