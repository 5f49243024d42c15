import { useEffect, useRef, useState } from 'react';
import { type UsageChartData } from './usage-figures';

const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 72 };

/** A round upper bound for the axis (1, 2 or 5 times a power of ten). */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(240, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * Stacked bars per UTC day, drawn by hand as SVG: an image with a name and a description; the tables beside it are
 * its accessible equivalent (every figure exactly), so the bars carry no focus of their own.
 */
export function UsageChart({
  title,
  note,
  data,
  value,
  formatValue,
  formatDay,
  groupLabel,
}: {
  title: string;
  note: string;
  data: UsageChartData;
  value(entry: { costUsd: string; totalTokens: number }): number;
  formatValue(value: number): string;
  formatDay(day: string): string;
  groupLabel(index: number): string;
}) {
  const [ref, width] = useWidth();
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const sums = data.days.map((day) => day.values.reduce((sum, entry) => sum + value(entry), 0));
  const max = niceMax(Math.max(0, ...sums));
  const slot = plotWidth / Math.max(1, data.days.length);
  const bar = Math.max(1, slot * 0.75);
  const y = (amount: number) => PAD.top + plotHeight - (amount / max) * plotHeight;
  const labelEvery = Math.max(1, Math.ceil(data.days.length / Math.max(2, Math.floor(plotWidth / 70))));
  const ticks = [0, max / 2, max];
  return (
    <figure className="usage-chart">
      <figcaption>{title}</figcaption>
      <div ref={ref} className="usage-chart-box">
        <svg width={width} height={HEIGHT} role="img" aria-label={`${title}. ${note}`} direction="ltr">
          {ticks.map((tick) => (
            <g key={tick}>
              <line x1={PAD.left} x2={width - PAD.right} y1={y(tick)} y2={y(tick)} className="usage-grid" />
              <text x={PAD.left - 6} y={y(tick) + 4} textAnchor="end" className="usage-axis">
                {formatValue(tick)}
              </text>
            </g>
          ))}
          {data.days.map((day, n) => {
            let base = 0;
            const x = PAD.left + n * slot + (slot - bar) / 2;
            return (
              <g key={day.day}>
                {day.values.map((entry, g) => {
                  const amount = value(entry);
                  if (amount <= 0) return null;
                  const top = y(base + amount);
                  const height = y(base) - top;
                  base += amount;
                  return (
                    <rect
                      key={g}
                      x={x}
                      y={top}
                      width={bar}
                      height={Math.max(1, height)}
                      className={`usage-series-${g % 8}`}
                    >
                      <title>{`${formatDay(day.day)}, ${groupLabel(g)}: ${formatValue(amount)}`}</title>
                    </rect>
                  );
                })}
                {n % labelEvery === 0 && (
                  <text x={x + bar / 2} y={HEIGHT - 8} textAnchor="middle" className="usage-axis">
                    {formatDay(day.day)}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <ul className="usage-legend">
        {data.groups.map((group, g) => (
          <li key={group.key}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" className={`usage-series-${g % 8}`} />
            </svg>
            {groupLabel(g)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
