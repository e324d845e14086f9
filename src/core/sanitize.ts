// Service data is untrusted: a campaign name, a post or an error page can carry escape sequences
// that retitle the window, clear the screen or draw a fake prompt, and bidi overrides that make
// text read differently than it is. Every human-readable writer (table, tsv, event lines, errors,
// messages) passes text through escapeForTerminal; JSON output stays exact.

// C0 controls, DEL, C1 controls, bidi embeddings/overrides (U+202A-202E) and isolates (U+2066-2069).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const TEST = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function code(ch: string): string {
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/**
 * Replaces every control character and bidi override by its visible `\uXXXX` escape.
 * `keepLayout` keeps newline and tab (multi-line messages); carriage return is always escaped,
 * since it lets a line overwrite what was printed before it. The escape is also a valid JSON
 * escape, so a JSON line passed through it still parses to the same value.
 */
export function escapeForTerminal(text: string, opts: { keepLayout?: boolean } = {}): string {
  if (!TEST.test(text)) return text;
  return text.replace(opts.keepLayout ? UNSAFE_KEEP_LAYOUT : UNSAFE, code);
}
