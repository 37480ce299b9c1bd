#!/usr/bin/env node
// shout-agent: a tiny "agent CLI" for the custom-adapter example.
//
// Reads the whole message from stdin, then prints JSON lines:
//   {"type":"text","text":"HEAR "}            one per word, streamed
//   {"type":"done","answer":"HEAR YE!","words":2}
// An empty message prints {"type":"error","message":…} then
// {"type":"done","answer":"","isError":true} and exits 1.
//
// Flags: --system-prompt TEXT (a persona, shouted first), --delay MS (between
// words, default 100). Unknown flags are rejected with exit code 2, as a real
// CLI would.

const args = process.argv.slice(2);
let systemPrompt;
let delayMs = 100;
for (let index = 0; index < args.length; index++) {
  const flag = args[index];
  const value = args[index + 1];
  if (flag === '--system-prompt' && value !== undefined) {
    systemPrompt = value;
    index++;
  } else if (flag === '--delay' && value !== undefined && Number.isFinite(Number(value)) && Number(value) >= 0) {
    delayMs = Number(value);
    index++;
  } else {
    process.stderr.write(`shout-agent: unknown or incomplete flag ${JSON.stringify(flag)} (expected --system-prompt TEXT, --delay MS)\n`);
    process.exit(2);
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const message = Buffer.concat(chunks).toString('utf8').trim();

const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

if (message === '') {
  print({ type: 'error', message: 'shout-agent: nothing to shout (stdin was empty)' });
  print({ type: 'done', answer: '', isError: true });
  process.exitCode = 1;
} else {
  const answer = `${systemPrompt ? `${systemPrompt.toUpperCase()} SAYS: ` : ''}${message.toUpperCase()}!`;
  const words = answer.split(' ');
  for (const [index, word] of words.entries()) {
    if (index > 0) await sleep(delayMs);
    print({ type: 'text', text: index < words.length - 1 ? `${word} ` : word });
  }
  print({ type: 'done', answer, words: words.length });
}
