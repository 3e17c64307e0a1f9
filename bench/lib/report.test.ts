import { describe, expect, it } from 'vitest';
import { bytesGoalText, keepUnselectedSections } from './report';

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

  it('a kept section that names its own run is not given the run of the file as its name', () => {
    const previous = page('`npm run bench -- server` on 2026-11-24 12:29 UTC in 207 s', [
      '(From `npm run bench -- calls` on 2026-11-24 16:21 UTC in 168 s.)\n\nold calls',
      'old server table',
      'old page table',
    ]);
    const merged = keepUnselectedSections(
      page('`npm run bench -- server` on 2026-11-24 18:56 UTC in 179 s', [
        'Not run (not selected).',
        'new server table',
        'Not run (not selected).',
      ]),
      previous,
    );
    expect(merged).toContain(
      '## 1. Part 1\n\n(From `npm run bench -- calls` on 2026-11-24 16:21 UTC in 168 s.)',
    );
    expect(merged).not.toMatch(/## 1\. Part 1\n\n\(Kept/);
    expect(merged).toContain(
      '(Kept from an earlier run: `npm run bench -- server` on 2026-11-24 12:29 UTC in 207 s.)\n\nold page table',
    );
  });

  it('keeps what the run does not write: the soak section and the notes under a section measured again', () => {
    const previous = [
      page('`npm run bench` on 2026-11-23', [
        'old calls',
        'old server table\n\n### Issue 32: history\n\nrow 1',
      ]),
      '## 5. Soak: a business month',
      '',
      'soak figures',
      '',
    ].join('\n');
    const merged = keepUnselectedSections(
      page('`npm run bench -- server` on 2026-11-27', ['Not run (not selected).', 'new server table']),
      previous,
    );
    expect(merged).toContain('new server table\n\n### Issue 32: history\n\nrow 1');
    expect(merged).not.toContain('old server table');
    expect(merged).toContain('old calls');
    expect(merged.trimEnd().endsWith('## 5. Soak: a business month\n\nsoak figures')).toBe(true);
  });

  it('keeps the soak section in its place by number, between the parts before and after it', () => {
    const bodies = ['calls', 'server', 'page', 'scale-out', 'not the soak', 'practice'];
    const previous = page('`npm run bench` on 2026-11-28', bodies).replace(
      '## 5. Part 5\n\nnot the soak',
      '## 5. Soak: a business month\n\nsoak figures',
    );
    const fresh = page('`npm run bench -- practice` on 2026-11-29', bodies).replace(
      /\n## 5\. Part 5\n\nnot the soak\n/,
      '',
    );
    const merged = keepUnselectedSections(fresh, previous);
    const titles = merged.split('\n').filter((line) => line.startsWith('## '));
    expect(titles).toEqual([
      '## 1. Part 1',
      '## 2. Part 2',
      '## 3. Part 3',
      '## 4. Part 4',
      '## 5. Soak: a business month',
      '## 6. Part 6',
    ]);
    expect(merged).toContain('## 5. Soak: a business month\n\nsoak figures\n\n## 6. Part 6\n\npractice');
  });

  it('a whole run, or no earlier file, is written as it is', () => {
    const fresh = page('`npm run bench` on 2026-11-24', ['a', 'b']);
    expect(keepUnselectedSections(fresh, null)).toBe(fresh);
    expect(keepUnselectedSections(fresh, page('earlier', ['x', 'y']))).toBe(`${fresh.trimEnd()}\n`);
  });

  it('counts the bytes goal met at the floor: Xero answering the writes with whole documents, reads adding little', () => {
    expect(bytesGoalText(6, 100_000, 0)).toBe('met');
    // Approving drafts: 434 KB, of which 420 KB are Xero's answers to the two writes.
    expect(bytesGoalText(1.1, 434_000, 420_000)).toMatch(/^met, at floor \(/);
    // Reads well above the floor are a miss, with the floor named.
    expect(bytesGoalText(2.1, 158_000, 40_000)).toMatch(/^\*\*missed\*\* \(floor /);
    // No writes: no floor to be at.
    expect(bytesGoalText(1.8, 4_200_000, 0)).toBe('**missed**');
    // A row that must read: its floor is the least Xero sends for that read, named by what it is made of.
    const model = 'every outstanding invoice once with summaryOnly';
    expect(bytesGoalText(1.8, 4_200_000, 4_150_000, model)).toBe(
      'met, at floor (floor 4.0 MB: every outstanding invoice once with summaryOnly)',
    );
    expect(bytesGoalText(2.1, 158_000, 100_000, model)).toBe(
      '**missed** (floor 97.7 KB: every outstanding invoice once with summaryOnly; 56.6 KB over it)',
    );
  });
});
