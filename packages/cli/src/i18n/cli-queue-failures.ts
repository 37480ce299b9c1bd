import { queueFailureMessages, type QueueFailureCode, type QueueFailureTexts } from '@troupe/queue-bullmq';
import type { CliLocale } from './cli-catalogue';
import type { CliMessages } from './cli-messages';
import { simplifiedChineseQueueFailureTexts } from './cli-queue-failures-zh-cn';

/**
 * Why a queued job failed, per language: English is the queue library's own
 * wording, other languages translate every failure code. Apart from the
 * main catalogue because it loads `@troupe/queue-bullmq`: only the queue
 * commands import it, so every other command starts without BullMQ.
 */
export const QUEUE_FAILURE_TEXTS: Readonly<Record<CliLocale, QueueFailureTexts>> = Object.freeze({
  en: queueFailureMessages,
  'zh-CN': simplifiedChineseQueueFailureTexts,
});

/** A failure as the origin receives it: on `queue:job-failed`, or on the `QueueJobError` of the job's result. */
export interface ReceivedQueueFailure {
  /** A queue failure code, another Troupe error's code, or none. */
  code: string | undefined;
  params: Readonly<Record<string, string | number>> | undefined;
  /** The worker's English message: what is shown for a code this CLI has no text for. */
  message: string;
}

/**
 * The failure in the language of `messages`, its code after it (so it can
 * be looked up whatever the language): the text of a known code from its
 * parameters, else the worker's message (a code from a newer worker, another
 * Troupe error's code, an error with none).
 */
export function queueFailureText(failure: ReceivedQueueFailure, messages: CliMessages): string {
  const texts = QUEUE_FAILURE_TEXTS[messages.locale as CliLocale] ?? QUEUE_FAILURE_TEXTS.en;
  let text = failure.message;
  if (failure.code !== undefined && Object.hasOwn(texts, failure.code)) {
    const describe = texts[failure.code as QueueFailureCode] as (params: Readonly<Record<string, string | number>>) => string;
    try {
      text = describe(failure.params ?? {});
    } catch {
      // Parameters this version does not expect: the worker's own message says it.
    }
  }
  return failure.code === undefined ? text : messages.queue.withCode(text, failure.code);
}
