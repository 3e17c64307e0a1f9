import fs from 'node:fs';

/**
 * The Node flags `npm run start:only` gives the server (package.json: "node [flags] dist/server/server.mjs"), so
 * tests and the bench start the server bundle exactly as the start command does.
 */
export function startCommandFlags(): string[] {
  const scripts = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  const words = (scripts['start:only'] ?? '').trim().split(/\s+/);
  const flags = words.slice(1, -1);
  if (
    words[0] !== 'node' ||
    words.at(-1) !== 'dist/server/server.mjs' ||
    flags.some((f) => !f.startsWith('--'))
  )
    throw new Error('package.json start:only is no longer "node [flags] dist/server/server.mjs"');
  return flags;
}
