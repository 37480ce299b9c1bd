import { createInterface, type Interface } from 'node:readline';
import type { Message } from '@troupe/core';
import { catalogueOf, type CliIo } from '../cli-io';

/** The two channels of the interactive session (seed 000: the Monitor tab runs DevHub). */
export const INTERACTIVE_CHANNELS = ['devhub', 'looper'] as const;
/** An interactive channel. */
export type InteractiveChannel = (typeof INTERACTIVE_CHANNELS)[number];

/** What the session talks to: this process's runner, or the process running the workspace. */
export interface InteractiveTarget {
  /** `local` (this process runs the workspace) or `attached` (another one does). */
  readonly kind: 'local' | 'attached';
  /** False when DevHub has no model. */
  readonly devhubAvailable: boolean;
  /** Sends a line to a channel's agent; the exchange arrives as messages. */
  send(channel: InteractiveChannel, input: string): Promise<void>;
  /** The newest messages of a channel, oldest first. */
  history(channel: InteractiveChannel, limit: number): Promise<Message[]>;
  /** New messages of every channel. */
  onMessage(listener: (message: Message) => void): void;
  /** Called when the target goes away (the attached process exited). */
  onClose(listener: () => void): void;
}

interface LoopStatus {
  text: string;
}

function statusFromMessage(message: Message, previous: LoopStatus | undefined): LoopStatus | undefined {
  const kind = message.metadata?.kind;
  const iteration = message.metadata?.iteration;
  if (message.channelId !== 'looper' || typeof kind !== 'string') return previous;
  switch (kind) {
    case 'run-started':
    case 'resumed':
    case 'iteration-started':
      return { text: `RUNNING ${typeof iteration === 'number' ? iteration : '?'} coder` };
    case 'coder':
      return { text: `RUNNING ${typeof iteration === 'number' ? iteration : '?'} review` };
    case 'review':
      return { text: `RUNNING ${typeof iteration === 'number' ? iteration : '?'} judge` };
    case 'run-finished':
      return undefined;
    default:
      return previous;
  }
}

/**
 * The interactive session (seed 000 Test 7): a prompt on one channel at a
 * time, DevHub or the Looper, switchable with `/devhub` and `/looper`; every
 * channel's messages — the Looper's `[AUTO]` progress included — print as
 * they arrive, above the prompt. The prompt shows the Looper's state.
 * Resolves when the user leaves (`/quit`, Ctrl-D, Ctrl-C twice) or the
 * target goes away.
 */
export async function runInteractiveSession(target: InteractiveTarget, io: CliIo, options: { channel: InteractiveChannel; banner: string }): Promise<void> {
  const m = catalogueOf(io).cli.interactive;
  let channel: InteractiveChannel = options.channel;
  let loop: LoopStatus | undefined;
  const tty = Boolean(io.stdout.isTTY) && Boolean(io.stdin.isTTY);
  const output = io.stdout as NodeJS.WritableStream;
  const rl: Interface = createInterface({ input: io.stdin, output, terminal: tty, historySize: 200 });
  const promptText = () => `${channel}${loop ? ` [${loop.text}]` : ''}> `;
  const show = (text: string) => {
    if (tty) {
      output.write('\r\x1b[2K');
      output.write(`${text}\n`);
      rl.setPrompt(promptText());
      rl.prompt(true);
    } else {
      output.write(`${text}\n`);
    }
  };
  const format = (message: Message) => {
    const who = message.role === 'user' ? `> ${message.speaker && message.speaker !== 'user' ? `(${message.speaker}) ` : ''}` : message.content.startsWith('[AUTO]') ? '' : `${message.speaker ?? message.role}: `;
    return `[${message.channelId}] ${who}${message.content}`;
  };

  target.onMessage((message) => {
    loop = statusFromMessage(message, loop);
    // What this terminal typed is already on screen.
    if (message.role === 'user' && message.speaker === 'user' && target.kind === 'local') {
      if (tty) rl.setPrompt(promptText());
      return;
    }
    show(format(message));
  });

  const printHistory = async (limit: number) => {
    const messages = await target.history(channel, limit);
    if (messages.length === 0) show(m.noMessages(channel));
    for (const message of messages) show(format(message));
  };

  show(options.banner);
  show(m.help);
  if (!target.devhubAvailable) show(m.noModel);
  await printHistory(10);
  rl.setPrompt(promptText());
  rl.prompt();

  await new Promise<void>((resolve) => {
    let interrupts = 0;
    let closed = false;
    const leave = () => {
      if (closed) return;
      closed = true;
      rl.close();
      resolve();
    };
    target.onClose(() => {
      show(m.targetExited);
      leave();
    });
    rl.on('close', leave);
    rl.on('SIGINT', () => {
      interrupts++;
      if (interrupts >= 2) return leave();
      show(m.ctrlC);
    });
    // Lines are handled one at a time, in order.
    let queue = Promise.resolve();
    rl.on('line', (line) => {
      interrupts = 0;
      queue = queue.then(() => handle(line.trim())).catch((error: unknown) => show(m.error((error as Error).message)));
    });

    async function handle(line: string): Promise<void> {
      if (line === '') return rl.prompt();
      if (line.startsWith('/')) {
        const [name, arg] = line.slice(1).split(/\s+/, 2);
        switch (name) {
          case 'quit':
          case 'exit':
          case 'q':
            return leave();
          case 'help':
          case '?':
            show(m.help);
            break;
          case 'devhub':
          case 'monitor':
          case 'looper':
          case 'switch':
          case 's':
            channel = name === 'looper' ? 'looper' : name === 'devhub' || name === 'monitor' ? 'devhub' : channel === 'looper' ? 'devhub' : 'looper';
            show(m.switched(channel));
            await printHistory(10);
            break;
          case 'status':
            await target.send('looper', '{"type":"status"}');
            break;
          case 'history':
            await printHistory(arg && /^\d+$/.test(arg) ? Number(arg) : 20);
            break;
          default:
            show(m.unknownCommand(name ?? ''));
        }
        rl.setPrompt(promptText());
        return rl.prompt();
      }
      if (channel === 'devhub' && !target.devhubAvailable) {
        show(m.devhubUnavailable);
      } else {
        await target.send(channel, line);
      }
      rl.setPrompt(promptText());
      rl.prompt();
    }
  });
}
