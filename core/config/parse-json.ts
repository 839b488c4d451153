/**
 * JSON.parse with a usable error: the line and column of the first syntax error and what was
 * expected there. Node's own messages differ between versions and often carry no position at
 * all ("Unexpected token '}', ... is not valid JSON"), so on failure a small scanner walks the
 * text again to locate the problem. The scanner runs only on failure; valid files cost one
 * JSON.parse.
 */
export interface JsonSyntaxProblem {
  /** 1-based line and column of the offending character (or of the end of the text). */
  line: number;
  column: number;
  offset: number;
  /** What is wrong there, e.g. `expected "," or "}" after a property value, found "\"b\""`. */
  reason: string;
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; problem: JsonSyntaxProblem };

export function parseJson(text: string): JsonParseResult {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // editors on Windows write a BOM
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    const found = new JsonScanner(source).findError();
    // The scanner is stricter than nothing but no stricter than JSON.parse; if it disagrees, keep Node's word.
    const fallback = { offset: source.length, reason: error instanceof Error ? error.message : String(error) };
    const { offset, reason } = found ?? fallback;
    return { ok: false, problem: { ...lineAndColumn(source, offset), offset, reason } };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class SyntaxProblem {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/** A recursive-descent recognizer of RFC 8259 JSON that stops at the first error. */
class JsonScanner {
  private pos = 0;

  constructor(private readonly text: string) {}

  findError(): { offset: number; reason: string } | undefined {
    try {
      this.value("a value");
      this.whitespace();
      if (this.pos < this.text.length) this.fail("end of file");
      return undefined;
    } catch (problem) {
      if (problem instanceof SyntaxProblem) return { offset: problem.offset, reason: problem.reason };
      throw problem;
    }
  }

  private value(expected: string): void {
    this.whitespace();
    const c = this.text[this.pos];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return;
      }
    }
    this.fail(expected);
  }

  private object(): void {
    this.pos++; // {
    this.whitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return;
    }
    for (;;) {
      this.whitespace();
      if (this.text[this.pos] !== '"') this.fail('a property name in double quotes');
      this.string();
      this.whitespace();
      if (this.text[this.pos] !== ":") this.fail('":" after the property name');
      this.pos++;
      this.value("a property value");
      this.whitespace();
      const c = this.text[this.pos];
      if (c === "}") {
        this.pos++;
        return;
      }
      if (c !== ",") this.fail('"," or "}" after a property value');
      this.pos++;
      this.whitespace();
      if (this.text[this.pos] === "}") this.fail("another property (JSON allows no trailing comma)");
    }
  }

  private array(): void {
    this.pos++; // [
    this.whitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return;
    }
    for (;;) {
      this.value("an array element");
      this.whitespace();
      const c = this.text[this.pos];
      if (c === "]") {
        this.pos++;
        return;
      }
      if (c !== ",") this.fail('"," or "]" after an array element');
      this.pos++;
      this.whitespace();
      if (this.text[this.pos] === "]") this.fail("another element (JSON allows no trailing comma)");
    }
  }

  private string(): void {
    this.pos++; // opening quote
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('a closing "');
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c < " ") this.fail("no raw control character inside a string (escape it)");
      if (c === "\\") {
        const escape = this.text[this.pos + 1];
        if (escape === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail("four hex digits after \\u");
          this.pos += 6;
          continue;
        }
        // Points at the backslash: the escape as a whole is wrong.
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
  }

  private number(): void {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos));
    if (match === null) this.fail("a number");
    this.pos += match[0].length;
  }

  private whitespace(): void {
    while (this.pos < this.text.length && " \t\n\r".includes(this.text[this.pos] as string)) this.pos++;
  }

  private fail(expected: string): never {
    const found = this.pos >= this.text.length ? "the end of the file" : describeChar(this.text, this.pos);
    throw new SyntaxProblem(this.pos, `expected ${expected}, found ${found}`);
  }
}

function describeChar(text: string, pos: number): string {
  if (text.startsWith("//", pos) || text.startsWith("/*", pos)) return "a comment (JSON has no comments)";
  const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(pos));
  if (word) return JSON.stringify(word[0]);
  return JSON.stringify(text[pos]);
}
