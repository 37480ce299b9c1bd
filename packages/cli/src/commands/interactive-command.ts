import type { Message } from '@troupe/core';
import { ROOT_OPTIONS } from '../args/cli-command-options';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { ControlClient } from '../control/control-client';
import type { PingResult } from '../control/control-protocol';
import { reachRunner } from '../control/reach-runner';
import { createChatModel, describeModel } from '../looper/cli-model';
import { readLooperOptions } from '../looper/read-looper-setup';
import { resolveLooperSetup } from '../looper/resolve-looper-setup';
import type { WorkspaceRunner } from '../looper/workspace-runner';
import { runInteractiveSession, type InteractiveChannel, type InteractiveTarget } from '../interactive/interactive-session';
import { openWorkspace, resolveWorkspacePath, type TroupeWorkspace } from '../workspace/troupe-workspace';
import { WorkspaceTakenError } from '../workspace/workspace-claim';
import { holdWorkspace } from './hold-workspace';

/**
 * `troupe` without a command (or `troupe devhub` without `-p`): the
 * interactive session. Runs the workspace in this process, or attaches to
 * the `troupe` process already running it.
 */
export async function runInteractiveCommand(argv: readonly string[], io: CliIo, defaults: { channel?: InteractiveChannel } = {}): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(
    argv.filter((arg) => arg !== '--devhub'),
    ROOT_OPTIONS,
    'troupe',
    m,
  );
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string));
  const read = await readLooperOptions(options, io, 'troupe');
  const model = read.model;
  const workspacePath = typeof options.workspace === 'string' ? options.workspace : '.';
  const { setup, summary } = await resolveLooperSetup(read, options, io, resolveWorkspacePath(workspacePath, io.cwd, m), 'troupe');
  // Without a model DevHub cannot answer: start on the Looper channel.
  const channel: InteractiveChannel = defaults.channel ?? (model ? 'devhub' : 'looper');
  const workspace = await openWorkspace(workspacePath, io);
  try {
    for (let attempt = 0; ; attempt++) {
      const reached = await reachRunner(workspace.store, { messages: m });
      if (reached) {
        if (options.newsession) io.stderr.write(`troupe: ${m.workspace.newSessionIgnored(reached.holder.pid, 'attach')}\n`);
        const target = await attachedTarget(workspace, reached.client, reached.holder.sessionId);
        await runInteractiveSession(target, io, { channel, banner: m.interactive.attached(workspace.root, reached.holder.pid, reached.holder.sessionId) });
        reached.client.close();
        return EXIT_CODES.ok;
      }
      try {
        return await holdWorkspace(workspace, {
          io,
          setup,
          devhubModel: model ? await createChatModel(model) : undefined,
          mode: 'interactive',
          newSession: options.newsession === true,
          banner: m.interactive.banner(workspace.root, workspace.session.id, model ? m.interactive.devhubModel(describeModel(model, m)) : m.interactive.devhubNoModel, summary),
          channels: [],
          live: false,
          async work(runner) {
            await runInteractiveSession(localTarget(runner), io, { channel, banner: m.interactive.session(runner.workspace.session.id) });
            if (runner.looper.getStatus().state === 'RUNNING') io.stdout.write(`${m.interactive.stillRunning}\n`);
            return EXIT_CODES.ok;
          },
        });
      } catch (error) {
        if (error instanceof WorkspaceTakenError && attempt < 2) continue;
        throw error;
      }
    }
  } finally {
    await workspace.close();
  }
}

function localTarget(runner: WorkspaceRunner): InteractiveTarget {
  return {
    kind: 'local',
    devhubAvailable: runner.devhub !== undefined,
    async send(channel, input) {
      if (channel === 'looper') await runner.looperCommand(input, 'local');
      else await runner.devhubMessage(input, 'local');
    },
    history: async (channel, limit) => runner.log.messages.list(channel, { limit, last: true }),
    onMessage: (listener) => {
      runner.bus.on('message:added', (event) => listener(event.payload.message));
    },
    onClose: () => {},
  };
}

async function attachedTarget(workspace: TroupeWorkspace, client: ControlClient, sessionId: string): Promise<InteractiveTarget> {
  const namespace = (channelId: string) => ['sessions', sessionId, 'messages', channelId];
  const after: Record<string, number> = {};
  for (const channelId of ['devhub', 'looper']) {
    const saved = await workspace.store.list<Message>(namespace(channelId));
    after[channelId] = saved.at(-1)?.value.seq ?? 0;
  }
  const ping = await client.request<PingResult>({ op: 'ping' });
  const listeners: ((message: Message) => void)[] = [];
  client.onEvent((event) => {
    for (const listener of listeners) listener(event.message);
  });
  await client.request({ op: 'subscribe', after });
  return {
    kind: 'attached',
    devhubAvailable: ping.devhub,
    async send(channel, input) {
      await client.request({ op: channel, input }, { timeoutMs: 10 * 60_000 });
    },
    async history(channel, limit) {
      const saved = await workspace.store.list<Message>(namespace(channel));
      return saved.slice(-limit).map((item) => item.value);
    },
    onMessage: (listener) => listeners.push(listener),
    onClose: (listener) => client.onClose(listener),
  };
}
