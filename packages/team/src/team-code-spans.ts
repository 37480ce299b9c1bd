/** A piece of a message: plain prose, or code (a fenced block or an inline code span) kept verbatim. */
export interface TextSegment {
  text: string;
  code: boolean;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits Markdown text into prose and code segments: fenced blocks (``` or
 * ~~~, closed by a fence of the same character at least as long, or running
 * to the end) and inline code spans (a backtick run closed by a run of the
 * same length). Concatenating the segments gives the text back.
 */
export function splitCodeSegments(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let prose = '';
  const flushProse = () => {
    if (prose !== '') segments.push(...splitInlineCode(prose));
    prose = '';
  };
  const lines = text.split(/(?<=\n)/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string cannot hold a backtick; such a line is inline code instead.
    if (!open || (open[1]?.startsWith('`') && line.slice(open[0].length).includes('`'))) {
      prose += line;
      continue;
    }
    flushProse();
    const fence = open[1] as string;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*(\\r?\\n)?$`);
    let block = line;
    while (++i < lines.length) {
      block += lines[i] as string;
      if (close.test(lines[i] as string)) break;
    }
    segments.push({ text: block, code: true });
  }
  flushProse();
  return segments;
}

function splitInlineCode(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  const runs = [...text.matchAll(/`+/g)];
  let from = 0;
  let i = 0;
  while (i < runs.length) {
    const opener = runs[i] as RegExpExecArray;
    const closerIndex = runs.findIndex((run, j) => j > i && run[0].length === opener[0].length);
    if (closerIndex < 0) {
      i++; // an unmatched run is literal text
      continue;
    }
    const closer = runs[closerIndex] as RegExpExecArray;
    if (opener.index > from) segments.push({ text: text.slice(from, opener.index), code: false });
    from = closer.index + closer[0].length;
    segments.push({ text: text.slice(opener.index, from), code: true });
    i = closerIndex + 1;
  }
  if (from < text.length) segments.push({ text: text.slice(from), code: false });
  return segments;
}
