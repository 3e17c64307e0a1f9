/**
 * The client's build settings from `import.meta.env`. Checked by hand rather than with zod: this module is in
 * the first screen's download, which zod stays out of (bench/results.md §3). A bad value fails at startup, as
 * a zod parse would.
 */

/** An absolute http(s) URL, or undefined when unset; anything else is a build mistake worth failing on. */
export function readApiOrigin(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && /^https?:\/\//.test(value)) {
    try {
      new URL(value);
      return value;
    } catch {
      // falls through to the error below
    }
  }
  throw new Error(`VITE_API_ORIGIN must be an http(s) URL, got ${JSON.stringify(value)}`);
}

const source = import.meta.env as Record<string, unknown>;
const mode = typeof source.MODE === 'string' ? source.MODE : 'production';

export const env = {
  mode,
  isDev: source.DEV === true,
  isTest: mode === 'test',
  /** Optional origin of the API when it is not the page's own (never needed in production). */
  apiOrigin: readApiOrigin(source.VITE_API_ORIGIN),
} as const;
