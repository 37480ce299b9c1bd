import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every http(s) URL a page of the reference would load (scripts, styles, images, fonts, frames), as `file: tag`,
 * relative to `root`. A link the reader may follow (`<a href>`) or a URL in the text is not a load and is allowed.
 */
export function remoteLoads(folder: string, root: string): string[] {
  const loads =
    /<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc\s*=\s*["']?(?:https?:|\/\/)[^"'\s>]*|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:|\/\/)[^"'\s>]*|url\(\s*["']?(?:https?:|\/\/)[^)]*\)|@import\s+["'](?:https?:|\/\/)[^"']*/gi;
  const found: string[] = [];
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    if (!/\.(html|css|js)$/.test(name) || !statSync(path).isFile()) continue;
    for (const match of readFileSync(path, 'utf8').matchAll(loads)) found.push(`${relative(root, path)}: ${match[0].slice(0, 200)}`);
  }
  return found;
}
