import { formatCount } from '@/shared/counts';
import {
  Bar,
  CartesianGrid,
  Cell,
  ComposedChart,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatPounds } from '@/shared/money';
import type { ChartPoint, ChartStatus } from '../utils/periods';

/** Colours follow the status badges: green posted, amber draft (and part-posted), grey unposted, red unclear. */
const STATUS_COLOURS: Record<ChartStatus, string> = {
  posted: 'var(--color-success)',
  draft: 'var(--color-warning)',
  partial: 'var(--color-warning)',
  unposted: 'var(--color-muted-foreground)',
  unclear: 'var(--color-destructive)',
};

const STATUS_LABELS: Record<ChartStatus, string> = {
  posted: 'Posted',
  draft: 'Draft',
  partial: 'Partial',
  unposted: 'Unposted',
  unclear: 'Unclear',
};

function formatAxis(value: number): string {
  if (Math.abs(value) >= 1000) return `£${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)}k`;
  return `£${value.toFixed(0)}`;
}

/** A week's axis label ("1 Dec") as two lines: the day, then the month. */
function WeekTick(props: { x?: number | string; y?: number | string; payload?: { value?: unknown } }) {
  const [day = '', month = ''] = String(props.payload?.value ?? '').split(' ');
  return (
    <text
      x={Number(props.x ?? 0)}
      y={Number(props.y ?? 0)}
      textAnchor="middle"
      fontSize={11}
      fill="var(--color-muted-foreground)"
    >
      <tspan x={Number(props.x ?? 0)} dy="0.71em">
        {day}
      </tspan>
      <tspan x={Number(props.x ?? 0)} dy="1.2em">
        {month}
      </tspan>
    </text>
  );
}

interface TooltipProps {
  active?: boolean;
  payload?: ReadonlyArray<{ payload?: ChartPoint }>;
}

function ChartTooltip({ active, payload }: TooltipProps) {
  const point = payload?.[0]?.payload;
  if (!active || !point) return null;
  return (
    <div className="rounded-lg border border-border bg-card px-3 py-2 text-xs shadow-md">
      <p className="font-medium">{point.range}</p>
      <p className="tabular-nums">Net sales {formatPounds(point.net)}</p>
      <p className="tabular-nums">Cost of sales {formatPounds(point.cost)}</p>
      <p className="mt-1 flex items-center gap-1.5">
        <span
          aria-hidden
          className="inline-block size-2 rounded-full"
          style={{ background: STATUS_COLOURS[point.status] }}
        />
        Journal: {STATUS_LABELS[point.status]}
      </p>
    </div>
  );
}

/**
 * Net sales and cost of sales per week (beyond the spec): net bars coloured by the week's journal status,
 * cost of sales as a line. Loaded on its own chunk so the list never waits for the chart library.
 */
export default function SalesChart({ points }: { points: ChartPoint[] }) {
  const present = (Object.keys(STATUS_LABELS) as ChartStatus[]).filter((s) =>
    points.some((p) => p.status === s),
  );
  return (
    <figure className="grid gap-2">
      <div
        className="h-64 w-full"
        role="img"
        aria-label={`Net sales and cost of sales for ${formatCount(points.length, 'week')}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} stroke="var(--color-border)" />
            {/* Every week keeps its label (issue 45 item 4: at 375 px one was dropped for want of room): the day
                above the month, so a label takes the width of "Dec", not of "28 Dec". */}
            <XAxis
              dataKey="label"
              tickLine={false}
              axisLine={false}
              interval={0}
              height={34}
              tick={WeekTick}
            />
            <YAxis
              tickFormatter={formatAxis}
              tickLine={false}
              axisLine={false}
              width={48}
              tick={{ fontSize: 11, fill: 'var(--color-muted-foreground)' }}
            />
            <Tooltip content={<ChartTooltip />} cursor={{ fill: 'var(--color-muted)', opacity: 0.5 }} />
            <Bar
              dataKey="net"
              name="Net sales"
              radius={[3, 3, 0, 0]}
              maxBarSize={36}
              isAnimationActive={false}
            >
              {points.map((p) => (
                <Cell
                  key={p.key}
                  fill={STATUS_COLOURS[p.status]}
                  fillOpacity={p.status === 'unposted' ? 0.45 : 0.85}
                />
              ))}
            </Bar>
            <Line
              dataKey="cost"
              name="Cost of sales"
              type="monotone"
              stroke="var(--color-foreground)"
              strokeWidth={2}
              dot={{ r: 2 }}
              isAnimationActive={false}
            />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted-foreground">
        <span className="inline-flex items-center gap-1.5">
          <span aria-hidden className="inline-block h-0.5 w-4 rounded bg-foreground" />
          Cost of sales
        </span>
        <span>Net sales, by journal status:</span>
        {present.map((s) => (
          <span key={s} className="inline-flex items-center gap-1.5">
            <span
              aria-hidden
              className="inline-block size-2.5 rounded-sm"
              style={{ background: STATUS_COLOURS[s], opacity: s === 'unposted' ? 0.45 : 0.85 }}
            />
            {STATUS_LABELS[s]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
