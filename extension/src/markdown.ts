// Showing what the results store holds as text. A repository can ship its own .interleave/,
// so a test's name, a bug's message or a file's path may be crafted to end a code span or a
// fence and continue as a link (to a command:), an image or HTML. Everything from the store
// that goes into Markdown (a tooltip) or a notification passes through one of these; the
// Markdown built with them is also never trusted (no command links, no HTML). Pure functions,
// tested without an editor (test/markdown.test.ts).

/** s as Markdown text on one line: every ASCII punctuation character backslash-escaped, line breaks as spaces. */
export function escapeMarkdown(s: string): string {
  return oneLine(s).replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** s as an inline code span on one line, delimited by more backticks than any run s holds. */
export function codeSpan(s: string): string {
  s = oneLine(s);
  const fence = '`'.repeat(longestRun(s, '`') + 1);
  if (s.startsWith('`') || s.endsWith('`') || (s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '')) {
    s = ` ${s} `;
  }
  return fence + s + fence;
}

/** s as a fenced code block, its fence longer than any run of backticks s holds; ends with a line break. */
export function codeBlock(s: string, lang = 'text'): string {
  const fence = '`'.repeat(Math.max(3, longestRun(s, '`') + 1));
  return `${fence}${lang}\n${s}\n${fence}\n`;
}

/**
 * s for a notification (showInformationMessage and the like), whose text VS Code scans for
 * [label](https:|command:|file:...) links: "](" becomes "] (", which no such link has.
 */
export function inertMessage(s: string): string {
  return s.replace(/\]\(/g, '] (');
}

/** s with every control character (line breaks among them) a space. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

function longestRun(s: string, c: string): number {
  let longest = 0;
  let n = 0;
  for (const ch of s) {
    n = ch === c ? n + 1 : 0;
    longest = Math.max(longest, n);
  }
  return longest;
}
