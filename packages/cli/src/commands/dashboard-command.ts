import { ApprovalStore, EventBus, type Message } from '@troupe/core';
import { normalizeAllowedHosts } from '@troupe/core/util';
import { serveDashboard, type DashboardInput, type DashboardLooperControl } from '@troupe/dashboard';
import { createQueueClient, LOOPER_QUEUE, PIPELINE_QUEUE, SUB_AGENT_QUEUE } from '@troupe/queue-bullmq';
import { DASHBOARD_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { ControlClient } from '../control/control-client';
import type { CliMessages } from '../i18n/cli-messages';
import { reachRunner } from '../control/reach-runner';
import { LOOPER_ID } from '../looper/looper-checkpoint-commands';
import { openWorkspace } from '../workspace/troupe-workspace';
import { queuesOption, redisOption } from '../args/queue-options';

/** How often a detached dashboard looks for a runner. */
const ATTACH_RETRY_MS = 1000;
/** How often the queues' counts are read (`--queue`). */
const QUEUE_POLL_MS = 1000;

/**
 * `troupe dashboard`: serves the live dashboard of a workspace on
 * 127.0.0.1 (a random port unless `--port`, a random token in the printed
 * URL). It reads the session's saved state (Looper checkpoint and history,
 * usage ledger) from the workspace database, and attaches to the `troupe`
 * process running the workspace through its control socket: that process's
 * bus events arrive live, and the page's `add_pending` and `stop` go to its
 * Looper. With no runner it shows the saved session and attaches as soon as
 * one starts. Runs until Ctrl-C (exit 0).
 */
export async function runDashboardCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, DASHBOARD_OPTIONS, 'dashboard', m);
  if (options.help) {
    io.stdout.write(`${helpText('dashboard', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'dashboard' });
  const port = typeof options.port === 'string' ? parsePort(options.port, m) : 0;
  const allowedHosts = typeof options['allowed-host'] === 'string' ? parseAllowedHosts(options['allowed-host'], m) : [];
  const watched = queuesToWatch(options, m);
  const workspace = await openWorkspace(typeof options.workspace === 'string' ? options.workspace : '.', { cwd: io.cwd, env: io.env, ...(io.locale ? { locale: io.locale } : {}) });
  const bus = new EventBus({ source: 'dashboard' });
  const controller = new AbortController();
  let client: ControlClient | undefined;
  const looper: DashboardLooperControl = {
    command: async (input) => {
      if (!client) throw new CliError(m.dashboard.noRunner(workspace.root));
      return client.request({ op: 'looper', input });
    },
  };
  const dashboard = await serveDashboard({
    bus,
    store: workspace.store,
    // The deferred tool calls of the workspace's agents, with Allow/Deny (the same records `troupe approve` decides).
    approvals: new ApprovalStore(workspace.store),
    looper,
    looperId: LOOPER_ID,
    looperNamespace: workspace.looperNamespace(),
    usageNamespace: ['sessions', workspace.session.id, 'usage'],
    source: { label: m.dashboard.source(workspace.root), attached: false, detail: m.dashboard.detached },
    port,
    allowedHosts,
    signal: controller.signal,
  });
  const setSource = (attached: boolean, detail: string) =>
    dashboard.handler.push({ type: 'dashboard:source', timestamp: Date.now(), source: 'dashboard', payload: { label: m.dashboard.source(workspace.root), attached, controls: true, detail } });

  // Attach to the runner, and again whenever it goes away and another starts.
  const attach = async () => {
    while (!controller.signal.aborted && !client) {
      const reached = await reachRunner(workspace.store, { patienceMs: 0, messages: m }).catch(() => undefined);
      if (reached) {
        const connected = reached.client;
        const seen = new Set<string>();
        connected.onEvent(({ message }) => {
          if (seen.has(message.id)) return;
          seen.add(message.id);
          bus.emit('message:added', { channelId: message.channelId, tabId: message.channelId, message: message as Message, timestamp: message.timestamp });
        });
        connected.onBusEvent(({ envelope }) => {
          if (envelope.type === 'message:added') return;
          bus.publish(envelope);
        });
        connected.onClose(() => {
          if (client !== connected) return;
          client = undefined;
          setSource(false, m.dashboard.detached);
          if (!controller.signal.aborted) void attach();
        });
        try {
          await connected.request({ op: 'subscribe', events: true });
          client = connected;
          setSource(true, m.dashboard.attached(reached.holder.pid));
          return;
        } catch {
          connected.close();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, ATTACH_RETRY_MS).unref());
    }
  };
  void attach();
  const stopQueues = watched === undefined ? undefined : watchQueues(watched.url, watched.queues, dashboard.handler.push, io);

  io.stdout.write(`${m.dashboard.serving(dashboard.url)}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    controller.signal.addEventListener('abort', stop, { once: true });
    if (io.handleSignals) {
      process.once('SIGINT', () => controller.abort());
      process.once('SIGTERM', () => controller.abort());
    }
  });
  client?.close();
  await stopQueues?.();
  await dashboard.close();
  await workspace.close();
  io.stdout.write(`${m.dashboard.stopped}\n`);
  return EXIT_CODES.ok;
}

/** `--queue URL [--queues A,B]`, checked before anything starts: the Redis and the queues to show, if any. */
function queuesToWatch(options: Record<string, string | boolean | undefined>, m: CliMessages): { url: string; queues: string[] } | undefined {
  if (options.queue === undefined) {
    if (options.queues !== undefined) throw new CliUsageError(m.queue.queuesWithoutQueue, { command: 'dashboard' });
    return undefined;
  }
  const url = redisOption(options.queue, 'queue', 'dashboard', m);
  return { url, queues: queuesOption(options.queues, [LOOPER_QUEUE, PIPELINE_QUEUE, SUB_AGENT_QUEUE], 'dashboard', m) };
}

/** Reads the queues' job counts every second and shows them (`dashboard:queue-counts` inputs). */
function watchQueues(url: string, queues: readonly string[], push: (input: DashboardInput) => void, io: CliIo): () => Promise<void> {
  const client = createQueueClient({ connection: url, env: io.env });
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      for (const queue of queues) {
        const counts = await client.counts(queue).catch(() => undefined);
        if (counts && !stopped) push({ type: 'dashboard:queue-counts', timestamp: Date.now(), source: 'dashboard', payload: { queue, counts } });
      }
      await new Promise((resolve) => setTimeout(resolve, QUEUE_POLL_MS).unref());
    }
  };
  const polling = poll();
  return async () => {
    stopped = true;
    await polling;
    await client.close();
  };
}

/** `--allowed-host A,B`: the Host names the page may be opened under besides the loopback names. */
function parseAllowedHosts(value: string, m: CliMessages): string[] {
  const entries = value.split(',').map((entry) => entry.trim());
  try {
    return normalizeAllowedHosts(entries);
  } catch (error) {
    throw new CliUsageError(m.dashboard.allowedHost(value), { command: 'dashboard', cause: error });
  }
}

function parsePort(value: string, m: CliMessages): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new CliUsageError(m.dashboard.port(value), { command: 'dashboard' });
  return port;
}
