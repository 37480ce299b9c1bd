import {
  englishDevHubTexts,
  englishLooperTexts,
  simplifiedChineseDevHubTexts,
  simplifiedChineseLooperTexts,
  type DevHubTexts,
  type LooperTexts,
} from '@troupe/looper/commands';
import { englishCliHelpTexts, type CliHelpTexts } from './cli-help-texts';
import { simplifiedChineseCliHelpTexts } from './cli-help-texts-zh-cn';
import { englishCliMessages, type CliMessages } from './cli-messages';
import { simplifiedChineseCliMessages } from './cli-messages-zh-cn';

/** The languages of the `troupe` command line. */
export type CliLocale = 'en' | 'zh-CN';

/** Every user-facing text of one language: the CLI's own, its `--help`, the Looper's and DevHub's. */
export interface CliCatalogue {
  locale: CliLocale;
  cli: CliMessages;
  help: CliHelpTexts;
  looper: LooperTexts;
  devhub: DevHubTexts;
}

/** The message catalogue: one entry per language, English the default. */
export const CLI_CATALOGUES: Readonly<Record<CliLocale, CliCatalogue>> = Object.freeze({
  en: { locale: 'en', cli: englishCliMessages, help: englishCliHelpTexts, looper: englishLooperTexts, devhub: englishDevHubTexts },
  'zh-CN': {
    locale: 'zh-CN',
    cli: simplifiedChineseCliMessages,
    help: simplifiedChineseCliHelpTexts,
    looper: simplifiedChineseLooperTexts,
    devhub: simplifiedChineseDevHubTexts,
  },
});

/**
 * Reads a language name as written in `--lang` or a locale variable
 * (`zh_CN.UTF-8`, `zh-Hans`, `en_US`, `C`): any Chinese is Simplified
 * Chinese, anything else English. Undefined for a value that names no
 * language at all.
 */
export function parseLocale(value: string): CliLocale | undefined {
  const language = value.trim().toLowerCase().split(/[._@-]/)[0];
  if (language === 'zh') return 'zh-CN';
  if (language === 'en' || language === 'c' || language === 'posix') return 'en';
  return /^[a-z]{2,3}$/.test(language ?? '') ? 'en' : undefined;
}

/** The language the environment asks for: `LC_ALL`, else `LC_MESSAGES`, else `LANG` (the first one set), else English. */
export function localeFromEnv(env: Readonly<Record<string, string | undefined>>): CliLocale {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const value = env[name];
    if (value) return parseLocale(value) ?? 'en';
  }
  return 'en';
}
