// A tiny agent CLI for tests: reads its message on stdin, calls the tools of
// its plan (env TOOL_PLAN, a JSON list of { name, arguments }) on the tool
// server at env TOOLS_URL (plain JSON over HTTP, as an MCP client would call
// them), prints each result as a `text` line, then its answer as a `result`
// line. A step { "hang": true } prints `waiting` and never ends; a step
// { "write": path, "content": text } writes a file (a relative path: in its
// working directory) as a coding agent edits one.
import { writeFileSync } from 'node:fs';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const message = Buffer.concat(chunks).toString('utf8').trim();
const plan = JSON.parse(process.env.TOOL_PLAN ?? '[]');
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const outputs = [];
for (const step of plan) {
  if (step.hang) {
    print({ type: 'text', text: 'waiting' });
    setInterval(() => {}, 60_000);
    await new Promise(() => {});
  }
  if (step.write !== undefined) {
    writeFileSync(step.write, step.content ?? '');
    print({ type: 'text', text: `wrote ${step.write}` });
    continue;
  }
  const response = await fetch(process.env.TOOLS_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: step.name, arguments: step.arguments }),
  });
  const result = await response.json();
  outputs.push(result.content);
  print({ type: 'text', text: `${step.name}: ${result.content}` });
}
print({ type: 'result', result: `answer to "${message.split('\n').at(-1)}"${outputs.length > 0 ? ` after ${outputs.length} tool call(s)` : ''}` });
