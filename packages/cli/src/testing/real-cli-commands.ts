// The real agent CLIs (the adapter packages' pinned devDependencies) for the `troupe` integration tests: found by the test server's kit.
import { FAKE_TOOL_FILE_CONTENT, FAKE_TOOL_FILE_NAME } from '@troupe/test-server';

export { findRealCli, type RealCli } from '@troupe/test-server';

/** A workspace test that passes once the fake API's tool scenario has written its file (the real CLIs' Coder runs write it). */
export const HELLO_TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { readFileSync } = require('node:fs');\n" +
  `test('hello.txt holds the greeting', () => assert.strictEqual(readFileSync(__dirname + '/${FAKE_TOOL_FILE_NAME}', 'utf8'), ${JSON.stringify(FAKE_TOOL_FILE_CONTENT)}));\n`;
