/**
 * What a run hands back besides its output — its `result`, `attach()`ed media and warnings —
 * collected within bounds, because a hostile script can send any amount of each and the run
 * document must always reach its caller (docs/architecture.md#limits). Whatever is cut
 * is said in the document; the full result is kept for history.
 * @module
 */

import type { Attachment } from "../protocol/run_document.ts";

/** The bounds one run's returns are kept within. */
export interface ReturnLimits {
  /** Bytes of the result's JSON the caller receives (`exec.maxOutputBytes`). */
  maxResultBytes: number;
  /** Attachments kept (`exec.maxAttachments`). */
  maxAttachments: number;
  /** Bytes of all attachments' JSON together (`exec.maxAttachmentBytes`). */
  maxAttachmentBytes: number;
  /** Warnings kept (`exec.maxWarnings`). */
  maxWarnings: number;
  /** Characters of one warning kept. @default {2000} */
  maxWarningChars?: number;
}

/** The part of the run document these make up. */
export interface BoundedReturns {
  result?: unknown;
  resultTruncated?: true;
  attachments: Attachment[];
  warnings: string[];
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The first `maxBytes` bytes of `text`, never splitting a character. */
function headOf(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** Collects one run's returns, dropping (and counting) what is over its limits. */
export class RunReturns {
  readonly #limits: ReturnLimits;
  #result: unknown = undefined;
  #attachments: Attachment[] = [];
  #attachmentBytes = 0;
  #droppedAttachments = 0;
  #droppedAttachmentBytes = 0;
  #warnings: string[] = [];
  #droppedWarnings = 0;

  constructor(limits: ReturnLimits) {
    this.#limits = limits;
  }

  /** The attachments kept so far (numbering continues from their count). */
  get attachments(): readonly Attachment[] {
    return this.#attachments;
  }

  /** The result exactly as the script gave it, for history. */
  get fullResult(): unknown {
    return this.#result;
  }

  /** Records the script's result (the last one wins). */
  setResult(value: unknown): void {
    this.#result = value;
  }

  /** Keeps a warning, shortened if long; past the count limit it is only counted. */
  addWarning(message: string): void {
    if (this.#warnings.length >= this.#limits.maxWarnings) {
      this.#droppedWarnings++;
      return;
    }
    const max = this.#limits.maxWarningChars ?? 2000;
    this.#warnings.push(
      message.length > max
        ? `${message.slice(0, max)}… [${message.length - max} more characters]`
        : message,
    );
  }

  /** Keeps an attachment while the count and byte budgets allow; says so in a warning if not. */
  addAttachment(block: Attachment): void {
    const size = byteLength(JSON.stringify(block));
    if (
      this.#attachments.length >= this.#limits.maxAttachments ||
      this.#attachmentBytes + size > this.#limits.maxAttachmentBytes
    ) {
      this.#droppedAttachments++;
      this.#droppedAttachmentBytes += size;
      return;
    }
    this.#attachments.push(block);
    this.#attachmentBytes += size;
  }

  /** The bounded returns for the run document of `runId`. */
  bounded(runId: string, options: { includeResult: boolean }): BoundedReturns {
    const warnings = [...this.#warnings];
    if (this.#droppedWarnings > 0) {
      warnings.push(
        `[gateway: ${this.#droppedWarnings} more warning(s) dropped: over exec.maxWarnings ` +
          `(${this.#limits.maxWarnings})]`,
      );
    }
    if (this.#droppedAttachments > 0) {
      warnings.push(
        `[gateway: ${this.#droppedAttachments} attachment(s) of ${this.#droppedAttachmentBytes} ` +
          `bytes dropped: over exec.maxAttachments (${this.#limits.maxAttachments}) or ` +
          `exec.maxAttachmentBytes (${this.#limits.maxAttachmentBytes})]`,
      );
    }
    const out: BoundedReturns = { attachments: [...this.#attachments], warnings };
    if (!options.includeResult || this.#result === undefined) return out;
    const json = JSON.stringify(this.#result);
    if (json === undefined) return out;
    const total = byteLength(json);
    if (total <= this.#limits.maxResultBytes) {
      out.result = this.#result;
      return out;
    }
    const head = headOf(json, this.#limits.maxResultBytes);
    out.result = `[gateway: result truncated: ${byteLength(head)} of ${total} bytes of its JSON ` +
      `kept (exec.maxOutputBytes); full value: gateway history show ${runId}]\n${head}`;
    out.resultTruncated = true;
    return out;
  }
}
