/**
 * Troupe team chat: Ada (an architect on Claude Code), Linus (a reviewer on
 * Codex CLI) and you design a rate limiter together. `[NEXT: name]` passes the
 * turn, round-robin otherwise; an AI's `[DONE]` only ends its reply, yours
 * (or `/end`) ends the conversation.
 *
 * Offline (default): the real adapters build each CLI's command line and
 * parse its stream, but the process is Troupe's fake agent CLI replaying
 * recorded streams with scripted answers. Your lines come from the terminal,
 * or from stdin when piped (a built-in script when stdin is empty).
 *
 * Run: `npx -y pnpm@10.34.9 --filter @troupe/example-team-chat start [--live] [--config path/to/team.json]`
 */
import { TroupeError } from '@troupe/core';
import { runTeamChat } from './team-chat';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write('Usage: team-chat [--live] [--config <team.json>]\n  --live    use the real claude and codex CLIs (installed and signed in)\n');
  process.exit(0);
}
const unknown = args.filter((arg, index) => !['--live', '--config'].includes(arg) && args[index - 1] !== '--config');
if (unknown.length > 0) {
  process.stderr.write(`Unknown argument(s): ${unknown.join(' ')}. Try --help.\n`);
  process.exit(2);
}
const configAt = args.indexOf('--config');
const configPath = configAt >= 0 ? args[configAt + 1] : undefined;
if (configAt >= 0 && configPath === undefined) {
  process.stderr.write('--config needs a path to a team JSON file.\n');
  process.exit(2);
}

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
try {
  const result = await runTeamChat({ live: args.includes('--live'), ...(configPath ? { configPath } : {}), signal: controller.signal });
  process.exitCode = result.reason === 'error' ? 1 : 0;
} catch (error) {
  process.stderr.write(`${TroupeError.isInstance(error) ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
