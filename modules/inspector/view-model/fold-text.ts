/** A long content shown folded: its first lines / characters, and what was left out. */
export interface FoldedText {
  /** What the page shows folded (the whole text when nothing is hidden). */
  preview: string;
  full: string;
  folded: boolean;
  /** Characters the preview leaves out. */
  hiddenChars: number;
}

export const FOLD_CHARS = 400;
export const FOLD_LINES = 6;
/** A fold must hide at least this many characters or FOLD_MIN_HIDDEN_LINES lines: "show all" never hides two characters. */
export const FOLD_MIN_HIDDEN_CHARS = 200;
export const FOLD_MIN_HIDDEN_LINES = 3;

/**
 * Folds `text` when it is longer than `chars` characters or `lines` lines: the preview stops at
 * whichever limit comes first (never inside a UTF-16 surrogate pair). A text that would hide less
 * than FOLD_MIN_HIDDEN_CHARS characters and fewer than FOLD_MIN_HIDDEN_LINES lines is shown whole.
 */
export function foldText(text: string, chars = FOLD_CHARS, lines = FOLD_LINES): FoldedText {
  let end = Math.min(text.length, chars);
  let newlines = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++newlines === lines) {
      end = i;
      break;
    }
  }
  if (end >= text.length || !meaningful(text, end)) return { preview: text, full: text, folded: false, hiddenChars: 0 };
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { preview: text.slice(0, end), full: text, folded: true, hiddenChars: text.length - end };
}

/** One line for tables: whitespace runs collapsed, at most `chars` characters, "…" when cut. */
export function oneLine(text: string, chars = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= chars) return flat;
  let end = chars - 1;
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${flat.slice(0, end)}…`;
}

function meaningful(text: string, end: number): boolean {
  if (text.length - end >= FOLD_MIN_HIDDEN_CHARS) return true;
  let newlines = 0;
  for (let i = end; i < text.length; i++) if (text.charCodeAt(i) === 10 && ++newlines >= FOLD_MIN_HIDDEN_LINES) return true;
  return false;
}
