/**
 * Every link in the README and the documents resolves (issue 46): a relative link names a file or folder that
 * exists, and a `#fragment` names a heading of the page it points at (GitHub's heading slugs). Links to the web
 * are left alone (the machines that run this have no internet).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The pages checked: the README, everything under docs/, and the READMEs beside the code. */
function pages(): string[] {
  const found = ['README.md', 'bench/README.md', 'bench/results.md', 'src/sandbox/README.md'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  for (const dir of ['src/server', 'src/client']) {
    const stack = [dir];
    while (stack.length > 0) {
      const current = stack.pop() as string;
      for (const entry of fs.readdirSync(path.join(ROOT, current), { withFileTypes: true })) {
        const rel = path.posix.join(current, entry.name);
        if (entry.isDirectory()) stack.push(rel);
        else if (entry.name === 'README.md') found.push(rel);
      }
    }
  }
  return found.filter((p) => fs.existsSync(path.join(ROOT, p)));
}

/** GitHub's anchor for a heading: lower case, punctuation other than hyphens and spaces dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingSlug(match[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a markdown page (inline links and images), outside code blocks and code spans. */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)]
    .map((m) => m[1] ?? '')
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

describe('links in the README and docs/', () => {
  const checked = pages();

  it('finds the pages it checks', () => {
    expect(checked).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/operations.md']));
  });

  it('every relative link names a file that exists, and every #fragment a heading there', () => {
    const broken: string[] = [];
    for (const page of checked) {
      const file = path.join(ROOT, page);
      for (const href of linksOf(fs.readFileSync(file, 'utf8'))) {
        const [target = '', fragment] = href.split('#');
        const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
        if (!resolved.startsWith(ROOT) || !fs.existsSync(resolved)) {
          broken.push(`${page}: ${href} (no such file)`);
          continue;
        }
        if (fragment && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment))
          broken.push(`${page}: ${href} (no heading #${fragment})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README stays a front page a newcomer reads in five minutes (about 15 KB at most)', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(15 * 1024);
  });

  it('reads GitHub heading anchors the way GitHub writes them', () => {
    expect(headingSlug('Deploy and scale-out')).toBe('deploy-and-scale-out');
    expect(headingSlug('4. Server behaviour the product documents leave open')).toBe(
      '4-server-behaviour-the-product-documents-leave-open',
    );
    expect(headingSlug('`npm test`: the whole suite')).toBe('npm-test-the-whole-suite');
  });
});
