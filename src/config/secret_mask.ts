/**
 * Masks secrets — every `${env:…}` expansion, `history.redact` values and the gateway's own
 * token — in text about to leave the server (HTTP bodies, WebSocket frames, messages to a
 * script's runner), so a failing upstream whose URL or command holds a secret cannot show it
 * in a status line, a type, an error or `describe()`.
 * @module
 */

/** What a secret becomes. */
export const REDACTED = "[REDACTED]";

/** Values shorter than this are not masked: replacing them would shred ordinary text. */
const MIN_SECRET_LENGTH = 4;

/**
 * The forms a secret takes in text: as written, and escaped inside a JSON string, longest
 * first so a secret containing another is replaced whole.
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) forms.add(escaped);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Replaces every secret form in `text` with {@linkcode REDACTED}. */
export function maskSecrets(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) {
    if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** A masker over a secret list that may change (config reloads); forms are cached per list. */
export class SecretMask {
  readonly #source: () => readonly string[];
  #from: readonly string[] | null = null;
  #forms: string[] = [];

  constructor(source: () => readonly string[]) {
    this.#source = source;
  }

  /** The current forms, recomputed only when the list changed. */
  forms(): string[] {
    const list = this.#source();
    if (list !== this.#from) {
      this.#from = list;
      this.#forms = secretForms(list);
    }
    return this.#forms;
  }

  /** `text` with every current secret masked. */
  mask(text: string): string {
    const forms = this.forms();
    return forms.length === 0 ? text : maskSecrets(text, forms);
  }

  /** A copy of a JSON value with secrets masked in every string. */
  deep<T>(value: T): T {
    if (this.forms().length === 0 || value === undefined) return value;
    return JSON.parse(this.stringify(value)) as T;
  }

  /**
   * `JSON.stringify(value)` with secrets masked inside strings only, so a secret that looks
   * like a number or a keyword (`"9000"`, `"true"`) can never corrupt the JSON around it.
   */
  stringify(value: unknown): string {
    const forms = this.forms();
    const plain = JSON.stringify(value);
    // JSON escapes a string character by character, so a string holding a secret holds it in
    // the text as one of its forms (as written, or escaped): text without any form needs no
    // masking pass, which would call a replacer on every value (every reply to a
    // script goes through here).
    if (forms.length === 0 || plain === undefined || !forms.some((f) => plain.includes(f))) {
      return plain;
    }
    return JSON.stringify(
      value,
      (_key, v: unknown) => typeof v === "string" ? maskSecrets(v, forms) : v,
    );
  }
}
