/**
 * @module
 * The relative links of the Markdown files a newcomer reads (README.md, docs/*.md): each must name a file or
 * folder that exists, and a `#fragment` into a Markdown file a heading of it (GitHub's anchors). Links inside
 * fenced code blocks and absolute URLs (`https:`, `mailto:`) are not checked.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** GitHub's anchor of a heading: lower case, punctuation dropped (`-` and `_` kept), spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
}

function anchorsOf(file: string): Set<string> {
  const text = withoutCodeBlocks(readFileSync(file, "utf8"));
  return new Set([...text.matchAll(/^#{1,6} +(.+?) *#*$/gm)].map((m) => headingAnchor(m[1] ?? "")));
}

/** The broken relative links of `file` (a Markdown file), as `file: [text](target): why`. */
export function brokenLinks(file: string): string[] {
  const text = withoutCodeBlocks(readFileSync(file, "utf8"));
  const broken: string[] = [];
  for (const match of text.matchAll(/!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[2] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [relative = "", fragment] = target.split("#", 2);
    const resolved = relative === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(relative));
    const where = `${file}: [${match[1]}](${target})`;
    if (!existsSync(resolved)) {
      broken.push(`${where}: no such file ${resolved}`);
    } else if (fragment && resolved.endsWith(".md") && statSync(resolved).isFile() && !anchorsOf(resolved).has(fragment)) {
      broken.push(`${where}: ${path.basename(resolved)} has no heading with the anchor #${fragment}`);
    }
  }
  return broken;
}
