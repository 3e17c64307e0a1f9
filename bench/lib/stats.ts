/** A figure measured several times: its median with the smallest and largest value seen. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function summarize(values: readonly number[]): Spread | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median, min: sorted[0] ?? 0, max: sorted[sorted.length - 1] ?? 0, runs: sorted.length };
}

/** "1,234" style, with the given number of decimals. */
export function formatNumber(value: number, decimals = 0): string {
  return value.toLocaleString('en-GB', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** "median (min–max)", or the single value when every run agreed. */
export function formatSpread(spread: Spread | null, decimals = 0, unit = ''): string {
  if (!spread) return 'n/a';
  const m = `${formatNumber(spread.median, decimals)}${unit}`;
  if (spread.min === spread.max) return spread.runs > 1 ? `${m} (every run)` : m;
  return `${m} (${formatNumber(spread.min, decimals)}–${formatNumber(spread.max, decimals)}${unit})`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${formatNumber(bytes / (1024 * 1024), 1)} MB`;
  return `${formatNumber(bytes / 1024, 1)} KB`;
}
