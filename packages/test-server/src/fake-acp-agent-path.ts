import { fileURLToPath } from 'node:url';

/**
 * An executable stand-in for `gemini --acp` (a node script), for ACP adapter
 * tests: it answers `initialize` and `session/new` with Gemini CLI 0.61.0's
 * recorded responses (`fake-acp/acp-tool-permission.stdout.jsonl`), and for
 * `session/prompt` asks permission for the recorded `write_file` call, then
 * reports the driver's answer as the assistant text. Flags:
 * `--exit-on-initialize N`, `--record FILE` (see the script's header).
 */
export const FAKE_ACP_AGENT_PATH = fileURLToPath(new URL('./fake-acp/fake-acp-agent.mjs', import.meta.url));
