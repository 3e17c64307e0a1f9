/**
 * Wiring per module stays that way (issue 46): src/server/wiring.ts builds the shared parts and lists the modules,
 * one line each; each module wires itself in its own entry. Adding a feature means adding its folder, its
 * index.ts and one line in wiring.ts, never editing the middle of a long function. Lines are counted as `wc -l`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const server = fileURLToPath(new URL('.', import.meta.url));
const modulesDir = path.join(server, 'modules');

/** Lines as `wc -l` counts them: newline characters. */
function lineCount(file: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').length - 1;
}

function moduleFolders(): string[] {
  return fs
    .readdirSync(modulesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** What wiring.ts imports from each module's entry: folder → the names it imports. */
function entriesImported(wiring: string): Map<string, string[]> {
  const imported = new Map<string, string[]>();
  const pattern = /import\s*\{([^}]*)\}\s*from\s*'\.\/modules\/([a-z0-9-]+)\/index'/g;
  for (const match of wiring.matchAll(pattern)) {
    const names = (match[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    imported.set(match[2] ?? '', names);
  }
  return imported;
}

describe('the wiring, per module (issue 46)', () => {
  it('keeps src/server/wiring.ts under 200 lines', () => {
    expect(lineCount(path.join(server, 'wiring.ts'))).toBeLessThan(200);
  });

  it('keeps each shared part’s construction (src/server/wiring/) under 200 lines', () => {
    const files = fs.readdirSync(path.join(server, 'wiring')).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect(lineCount(path.join(server, 'wiring', name)), name).toBeLessThan(200);
  });

  it('gives every module folder an entry (index.ts) under 120 lines', () => {
    const folders = moduleFolders();
    expect(folders.length).toBeGreaterThan(10);
    for (const folder of folders) {
      const entry = path.join(modulesDir, folder, 'index.ts');
      expect(fs.existsSync(entry), `src/server/modules/${folder}/index.ts`).toBe(true);
      expect(lineCount(entry), `src/server/modules/${folder}/index.ts`).toBeLessThan(120);
    }
  });

  it('lists every module’s entry in wiring.ts, and calls what it imports from it', () => {
    const wiring = fs.readFileSync(path.join(server, 'wiring.ts'), 'utf8');
    const imported = entriesImported(wiring);
    expect([...imported.keys()].sort()).toEqual(moduleFolders());
    for (const [folder, names] of imported) {
      expect(names.length, folder).toBeGreaterThan(0);
      for (const name of names) expect(wiring.includes(`${name}(`), `${folder}: ${name}`).toBe(true);
    }
  });
});
