import { describe, expect, it } from 'vitest';
import { keepUnselectedSections } from './report';

const page = (produced: string, bodies: string[]) =>
  [
    `# Benchmark results`,
    '',
    `Produced by ${produced}.`,
    '',
    ...bodies.flatMap((b, i) => [`## ${i + 1}. Part ${i + 1}`, '', b, '']),
  ].join('\n');

describe('bench results file', () => {
  it('a run of some parts keeps the other parts from the file it replaces, marked with their run', () => {
    const previous = page('`npm run bench` on 2026-11-23 08:19 UTC in 431 s', [
      'old calls',
      'old server table',
      'old page table',
    ]);
    const fresh = page('`npm run bench -- calls` on 2026-11-24 08:30 UTC in 220 s', [
      'new calls',
      'Not run (not selected).',
      'Not run (not selected).',
    ]);
    const merged = keepUnselectedSections(fresh, previous);
    expect(merged).toContain('## 1. Part 1\n\nnew calls');
    expect(merged).not.toContain('old calls');
    expect(merged).toContain(
      '## 2. Part 2\n\n(Kept from an earlier run: `npm run bench` on 2026-11-23 08:19 UTC in 431 s.)\n\nold server table',
    );
    expect(merged).toContain('old page table');
    expect(merged).not.toContain('Not run (not selected).');

    // Another partial run later: the kept sections keep naming the run that measured them, once.
    const again = keepUnselectedSections(
      page('`npm run bench -- calls` on 2026-11-25 09:00 UTC in 200 s', [
        'newer calls',
        'Not run (not selected).',
        'Not run (not selected).',
      ]),
      merged,
    );
    expect(
      again.match(/Kept from an earlier run: `npm run bench` on 2026-11-23 08:19 UTC in 431 s\./g),
    ).toHaveLength(2);
    expect(again).toContain('newer calls');
    expect(again).toContain('old server table');
  });

  it('a whole run, or no earlier file, is written as it is', () => {
    const fresh = page('`npm run bench` on 2026-11-24', ['a', 'b']);
    expect(keepUnselectedSections(fresh, null)).toBe(fresh);
    expect(keepUnselectedSections(fresh, page('earlier', ['x', 'y']))).toBe(`${fresh.trimEnd()}\n`);
  });
});
