/**
 * The select trigger's look, apart from Radix: the header shows a trigger drawn with it while the Select
 * chunk loads, so Radix Select stays out of the first screen's download (bench/results.md §3) without a
 * visible change.
 */
export const SELECT_TRIGGER_CLASS =
  'flex h-9 w-full items-center justify-between gap-2 rounded-lg border border-input bg-card px-3 text-sm shadow-xs focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 data-[placeholder]:text-muted-foreground [&>span]:truncate';
