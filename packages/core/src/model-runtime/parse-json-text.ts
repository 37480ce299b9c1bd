/** Result of {@link parseJsonText}. */
export type ParseJsonTextResult = { success: true; value: unknown } | { success: false; message: string };

const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

/**
 * Reads a JSON value out of a model's answer: the whole text, else the
 * content of a ```json fence, else the span from the first `{`/`[` to the
 * last `}`/`]` (models that ignore "JSON only" wrap it in prose).
 */
export function parseJsonText(text: string): ParseJsonTextResult {
  const candidates: string[] = [text.trim()];
  const fenced = FENCE.exec(text)?.[1];
  if (fenced !== undefined) candidates.push(fenced.trim());
  const start = text.search(/[{[]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  let firstError = '';
  for (const candidate of candidates) {
    if (candidate === '') continue;
    try {
      return { success: true, value: JSON.parse(candidate) };
    } catch (error) {
      firstError ||= error instanceof Error ? error.message : String(error);
    }
  }
  return { success: false, message: text.trim() === '' ? 'the answer was empty' : `the answer is not valid JSON (${firstError})` };
}
