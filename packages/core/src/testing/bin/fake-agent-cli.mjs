#!/usr/bin/env node
// Troupe's fake agent CLI: replays a recorded stdout stream (e.g. a real
// Claude Code / Codex / Gemini CLI fixture) with configurable timing, exit
// code and misbehaviour. Plain JavaScript so it runs anywhere `node` does.
//
// Usage: node fake-agent-cli.mjs [options]
//   --replay FILE         stdout lines to print (a .stdout.jsonl fixture)
//   --line TEXT           a line to print (repeatable; after --replay lines)
//   --timing recorded     use the per-line times of FILE's .meta.json
//   --speed N             divide recorded times by N (default 1)
//   --delay MS            wait MS before each line (default 0)
//   --first-delay MS      wait MS before the first line
//   --exit-code N         exit code (default 0)
//   --exit-delay MS       wait MS after the last line before exiting
//   --stderr TEXT         write TEXT to stderr first
//   --no-wait-stdin       do not wait for stdin to close before starting
//   --echo-stdin          print {"type":"stdin","text":…} with what stdin held
//   --print-argv          print {"type":"argv","argv":[…],"cwd":…}
//   --hang                never exit after the last line
//   --ignore-sigterm      ignore SIGTERM (needs SIGKILL)
//   --spawn-grandchild    start a grandchild that sleeps forever; print its pid
//   --garbage             print non-JSON noise between lines
//   --big-line BYTES      print one JSON line of about BYTES bytes first
//   --chunk-size N        write output in N-byte chunks (splits UTF-8 characters)
//   --die-signal SIG      kill itself with SIG after the last line
//   --stamp               add "troupeEmitMs" (performance.timeOrigin + now()) to each JSON
//                         object line as it is written (cross-process latency benchmarks)
//   --expand-env          replace ${env:NAME} in lines and --stderr text with NAME's value
//                         (JSON-escaped inside JSON lines): a CLI that echoes its secrets
//   --escape MODE         leave the process group: `setsid` (a grandchild in a new session),
//                         `double-fork` (a grandchild's child in a new session, orphaned),
//                         `nohup` (a grandchild ignoring SIGHUP and SIGTERM); each sleeps
//                         forever and its pid is printed as {"type":"escaped","pid":…}
//   --close-stdout        close stdout after the lines, then keep running until --exit-delay
//   --write PATH=TEXT     write TEXT to PATH (relative to its cwd, or absolute; repeatable) before the
//                         first line: an agent that edits its working folder, or writes outside it
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const args = process.argv.slice(2);
const options = { lines: [], writes: [], delay: 0, firstDelay: 0, exitCode: 0, exitDelay: 0, speed: 1, chunkSize: 0 };
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  const next = () => {
    const value = args[++i];
    if (value === undefined) fail(`missing value for ${arg}`);
    return value;
  };
  switch (arg) {
    case '--replay': options.replay = next(); break;
    case '--line': options.lines.push(next()); break;
    case '--timing': options.timing = next(); break;
    case '--speed': options.speed = Number(next()); break;
    case '--delay': options.delay = Number(next()); break;
    case '--first-delay': options.firstDelay = Number(next()); break;
    case '--exit-code': options.exitCode = Number(next()); break;
    case '--exit-delay': options.exitDelay = Number(next()); break;
    case '--stderr': options.stderr = next(); break;
    case '--no-wait-stdin': options.noWaitStdin = true; break;
    case '--echo-stdin': options.echoStdin = true; break;
    case '--print-argv': options.printArgv = true; break;
    case '--hang': options.hang = true; break;
    case '--ignore-sigterm': options.ignoreSigterm = true; break;
    case '--spawn-grandchild': options.grandchild = true; break;
    case '--garbage': options.garbage = true; break;
    case '--big-line': options.bigLine = Number(next()); break;
    case '--chunk-size': options.chunkSize = Number(next()); break;
    case '--die-signal': options.dieSignal = next(); break;
    case '--stamp': options.stamp = true; break;
    case '--expand-env': options.expandEnv = true; break;
    case '--escape': options.escape = next(); break;
    case '--close-stdout': options.closeStdout = true; break;
    case '--write': {
      const value = next();
      const at = value.indexOf('=');
      if (at <= 0) fail(`--write needs PATH=TEXT, got ${value}`);
      options.writes.push([value.slice(0, at), value.slice(at + 1)]);
      break;
    }
    default:
      // Anything else (a real CLI's flags and prompt) is accepted and ignored, so
      // adapters can point their real command line at this script.
      break;
  }
}

function fail(message) {
  process.stderr.write(`fake-agent-cli: ${message}\n`);
  process.exit(2);
}

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

async function write(text, stream = process.stdout) {
  const buffer = Buffer.from(text, 'utf8');
  const size = options.chunkSize > 0 ? options.chunkSize : buffer.length;
  for (let offset = 0; offset < buffer.length; offset += size) {
    const chunk = buffer.subarray(offset, offset + size);
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
    // A pause between pieces, so the reader gets them as separate chunks.
    if (options.chunkSize > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** ${env:NAME} → the variable's value (JSON-escaped when the line is JSON). */
function expand(text, json) {
  if (!options.expandEnv) return text;
  return text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name) => {
    const value = process.env[name] ?? '';
    return json ? JSON.stringify(value).slice(1, -1) : value;
  });
}

/** Starts a process that leaves this one's process group and sleeps forever; returns its pid (or the helper's). */
function escapeGroup(mode) {
  const sleeper = 'process.on("SIGTERM",()=>{});process.on("SIGHUP",()=>{});setInterval(()=>{},1e6)';
  if (mode === 'setsid') {
    const child = spawn(process.execPath, ['-e', sleeper], { stdio: 'ignore', detached: true });
    child.unref();
    return child.pid;
  }
  if (mode === 'double-fork') {
    // A child in a new session starts the sleeper (also detached) and exits: the sleeper is orphaned.
    const starter = `const c=require("child_process").spawn(process.execPath,["-e",${JSON.stringify(sleeper)}],{stdio:"ignore",detached:true});c.unref();console.log(c.pid)`;
    const child = spawn(process.execPath, ['-e', starter], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    child.unref();
    return new Promise((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stdout.on('end', () => resolve(Number(out.trim()) || child.pid));
    });
  }
  if (mode === 'nohup') {
    const child = spawn('nohup', [process.execPath, '-e', sleeper], { stdio: 'ignore' });
    child.unref();
    return child.pid;
  }
  fail(`unknown --escape mode ${mode}`);
}

function readStdin() {
  return new Promise((resolve) => {
    const chunks = [];
    process.stdin.on('data', (chunk) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function stamp(line) {
  if (!line.startsWith('{') || !line.endsWith('}')) return line;
  const now = performance.timeOrigin + performance.now();
  return `${line.slice(0, -1)}${line.length > 2 ? ',' : ''}"troupeEmitMs":${now}}`;
}

async function main() {
  if (options.ignoreSigterm) process.on('SIGTERM', () => {});
  if (options.stderr) await write(`${expand(options.stderr, false)}\n`, process.stderr);
  let stdinText = '';
  if (!options.noWaitStdin) stdinText = await readStdin();
  else process.stdin.resume();
  if (options.grandchild) {
    const child = spawn(process.execPath, ['-e', 'process.on("SIGTERM",()=>{});setInterval(()=>{},1e6)'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.unref(); // the fake itself exits normally; the grandchild lingers in its process group
    await write(`${JSON.stringify({ type: 'grandchild', pid: child.pid })}\n`);
  }
  if (options.escape) await write(`${JSON.stringify({ type: 'escaped', mode: options.escape, pid: await escapeGroup(options.escape) })}\n`);
  for (const [path, text] of options.writes) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  if (options.printArgv) await write(`${JSON.stringify({ type: 'argv', argv: process.argv.slice(2), cwd: process.cwd() })}\n`);
  if (options.echoStdin) await write(`${JSON.stringify({ type: 'stdin', text: stdinText })}\n`);
  if (options.bigLine) {
    const filler = 'x'.repeat(Math.max(0, options.bigLine - 40));
    await write(`${JSON.stringify({ type: 'big', data: filler })}\n`);
  }

  let lines = [];
  let times;
  if (options.replay) {
    const text = readFileSync(options.replay, 'utf8');
    lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    if (options.timing === 'recorded') {
      const metaPath = options.replay.replace(/\.stdout\.jsonl$/, '.meta.json');
      if (existsSync(metaPath)) {
        const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
        times = (meta.stdout_lines ?? []).map((entry) => entry.t_ms / (options.speed || 1));
      }
    }
  }
  lines.push(...options.lines);

  await sleep(options.firstDelay);
  const start = Date.now();
  for (let i = 0; i < lines.length; i++) {
    if (times && times[i] !== undefined) await sleep(times[i] - (Date.now() - start));
    else await sleep(options.delay);
    if (options.garbage) await write(`garbage line ${i} {not json\n`);
    const line = expand(lines[i], lines[i].trimStart().startsWith('{'));
    await write(`${options.stamp ? stamp(line) : line}\n`);
  }
  if (options.closeStdout) {
    await new Promise((resolve) => process.stdout.end(resolve));
    await sleep(options.exitDelay);
    process.exit(options.exitCode);
  }
  if (options.dieSignal) process.kill(process.pid, options.dieSignal);
  if (options.hang) {
    setInterval(() => {}, 1 << 30);
    return;
  }
  await sleep(options.exitDelay);
  process.exitCode = options.exitCode;
}

main().catch((error) => fail(String(error?.stack ?? error)));
