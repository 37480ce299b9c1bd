import type { LooperSnapshot } from './looper-state';
import { englishLooperTexts, type LooperTexts } from './looper-texts';

export { AUTO_PREFIX } from './looper-texts';

/** The Looper's answer to `status` (seed 000 Test 2: "State: IDLE" / "State: RUNNING"), in `texts`' language (English by default). */
export function formatLooperStatus(s: LooperSnapshot, texts: LooperTexts = englishLooperTexts): string {
  return texts.status(s);
}
