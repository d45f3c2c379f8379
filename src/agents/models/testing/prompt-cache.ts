/**
 * @module
 * The scripted servers' prompt caches, so that the usage a test sees follows from what the client sent,
 * as it does at the providers (token counts are estimates: one token per four characters of each block).
 *
 * Anthropic: the prompt is a sequence of blocks (tools, system, message content). A block marked
 * `cache_control` is a breakpoint: the prefix through it is written to the cache for its TTL. A request
 * reads the longest cached prefix that ends at one of its breakpoints or up to 20 blocks before one; the
 * tokens after it, up to the last breakpoint, are written; the rest is plain input. Prefixes shorter than
 * `minTokens` are not cached.
 *
 * OpenAI: caching is automatic. A prompt (tools, then input items) of at least 1024 tokens reads the
 * longest prefix it shares, item by item, with an earlier prompt, in steps of 128 tokens.
 */
import { createHash } from "node:crypto";

export function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export interface CachedUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
}

export interface PromptBlock {
  /** The block without its cache mark: what identifies the prefix. */
  key: string;
  tokens: number;
  /** The breakpoint's TTL, when the block carries `cache_control`. */
  ttl?: "5m" | "1h";
}

const LOOKBACK = 20;
const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

export class AnthropicPromptCache {
  readonly #entries = new Map<string, number>();

  constructor(
    readonly minTokens: number,
    readonly now: () => number = Date.now,
  ) {}

  use(blocks: readonly PromptBlock[]): CachedUsage {
    const now = this.now();
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let hash = "";
    let total = 0;
    for (const block of blocks) {
      hash = createHash("sha256").update(hash).update(block.key).digest("hex");
      total += block.tokens;
      hashes.push(hash);
      cumulative.push(total);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.ttl ? [i] : []));
    let readEnd = -1;
    for (const b of breakpoints) {
      for (let i = b; i >= Math.max(0, b - LOOKBACK); i--) {
        const expires = this.#entries.get(hashes[i]!);
        if (expires !== undefined && expires > now) {
          if (i > readEnd) readEnd = i;
          break;
        }
      }
    }
    const read = readEnd >= 0 ? cumulative[readEnd]! : 0;
    if (readEnd >= 0) this.#entries.set(hashes[readEnd]!, now + TTL_MS[blocks.find((_, i) => i >= readEnd && blocks[i]!.ttl)?.ttl ?? "5m"]);
    let written = 0;
    let written1h = 0;
    let writtenUpTo = read;
    for (const b of breakpoints) {
      if (b <= readEnd || cumulative[b]! < this.minTokens) continue;
      const ttl = blocks[b]!.ttl!;
      this.#entries.set(hashes[b]!, now + TTL_MS[ttl]);
      const segment = cumulative[b]! - writtenUpTo;
      written += segment;
      if (ttl === "1h") written1h += segment;
      writtenUpTo = cumulative[b]!;
    }
    return { inputTokens: total - read - written, cacheReadTokens: read, cacheWriteTokens: written, cacheWrite1hTokens: written1h };
  }
}

export class OpenAIPromptCache {
  readonly #prefixes = new Set<string>();

  /** `units`: the prompt's parts in order (the tools, then each input item), as JSON. */
  use(units: readonly string[]): CachedUsage {
    let hash = "";
    let total = 0;
    let shared = 0;
    const seen: string[] = [];
    for (const unit of units) {
      hash = createHash("sha256").update(hash).update(unit).digest("hex");
      total += approxTokens(unit);
      if (this.#prefixes.has(hash)) shared = total;
      seen.push(hash);
    }
    for (const h of seen) this.#prefixes.add(h);
    const read = total >= 1024 && shared >= 1024 ? Math.floor(shared / 128) * 128 : 0;
    return { inputTokens: total - read, cacheReadTokens: read, cacheWriteTokens: 0, cacheWrite1hTokens: 0 };
  }
}
