/**
 * What DevHub's tools answer (the model reads it) and the note DevHub posts
 * in its channel when it sends the Looper a command, in one language.
 */
export interface DevHubTexts {
  /** BCP 47 tag of the language (`en`, `zh-CN`). */
  locale: string;
  /** `send_to_looper`'s result when the Looper acknowledged. */
  sent(command: string, reply: string): string;
  /** `send_to_looper`'s result when the Looper did not acknowledge in time. */
  sentNoAck(command: string): string;
  /** `query_looper_state`'s result when the Looper did not answer in time. */
  statusTimeout: string;
  /** The one-line note posted in DevHub's channel for each command sent (seed 000: "命令已发送给 Looper"). */
  commandSent(command: string, task: string | undefined): string;
}

/** DevHub's texts in English (the default). */
export const englishDevHubTexts: DevHubTexts = {
  locale: 'en',
  sent: (command, reply) => `Sent "${command}" to the Looper. The Looper replied:\n${reply}`,
  sentNoAck: (command) => `Sent "${command}" to the Looper; it has not acknowledged yet. Progress will arrive as [AUTO] messages.`,
  statusTimeout: 'The Looper did not answer the status request in time; rely on its latest [AUTO] messages.',
  commandSent: (command, task) => `Command sent to the Looper: ${command}${task ? ` — ${JSON.stringify(task)}` : ''}`,
};

/** DevHub's texts in Simplified Chinese. */
export const simplifiedChineseDevHubTexts: DevHubTexts = {
  locale: 'zh-CN',
  sent: (command, reply) => `命令已发送给 Looper（${command}）。Looper 回复:\n${reply}`,
  sentNoAck: (command) => `命令已发送给 Looper（${command}），但它尚未确认。进度会以 [AUTO] 消息推送。`,
  statusTimeout: 'Looper 没有及时回应状态查询；请以它最新的 [AUTO] 消息为准。',
  commandSent: (command, task) => `命令已发送给 Looper: ${command}${task ? ` — ${JSON.stringify(task)}` : ''}`,
};
