import { fileURLToPath } from 'node:url';

/**
 * A minimal stdio MCP server (a node script, no SDK) with one tool, `echo` (`{ text }`), for the CLIs' permission
 * suites: it appends each call's text to the file named by its `ECHO_LOG` variable, so a test can tell which calls
 * ran, and with what input.
 */
export const FAKE_MCP_ECHO_SERVER_PATH = fileURLToPath(new URL('./fake-mcp-echo-server.mjs', import.meta.url));
