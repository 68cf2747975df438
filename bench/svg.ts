/** The latency CDF as a hand-written SVG (no plotting dependency): log-scaled milliseconds against the cumulative fraction. */

export interface Curve {
  label: string;
  color: string;
  dashed?: boolean;
  /** (quantile, ms) points, quantile ascending. */
  points: [number, number][];
}

const W = 760;
const LEGEND_H = 64;
const H = 420 + LEGEND_H;
const M = { left: 64, right: 24, top: 40, bottom: 56 + LEGEND_H };

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (ms: number) => (ms >= 1 ? `${ms}` : ms.toString());

export function cdfSvg(title: string, subtitle: string, curves: Curve[]): string {
  const all = curves.flatMap((c) => c.points.map(([, ms]) => ms)).filter((ms) => ms > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (ms: number) => M.left + ((Math.log10(Math.max(ms, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotW;
  const y = (q: number) => M.top + (1 - q) * plotH;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${M.left}" y="18" font-size="14" font-weight="600" fill="#111">${esc(title)}</text>`);
  out.push(`<text x="${M.left}" y="33" fill="#555">${esc(subtitle)}</text>`);
  // Grid: decades and their 2x, 5x on x; tenths on y.
  for (let decade = lo; decade <= hi; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const ms = decade * m;
      if (ms > hi) break;
      const gx = x(ms).toFixed(1);
      out.push(`<line x1="${gx}" y1="${M.top}" x2="${gx}" y2="${M.top + plotH}" stroke="${m === 1 ? "#d0d0d0" : "#ececec"}"/>`);
      out.push(`<text x="${gx}" y="${M.top + plotH + 16}" text-anchor="middle" fill="#444">${fmt(Number(ms.toPrecision(3)))}</text>`);
    }
  }
  for (let i = 0; i <= 10; i++) {
    const gy = y(i / 10).toFixed(1);
    out.push(`<line x1="${M.left}" y1="${gy}" x2="${M.left + plotW}" y2="${gy}" stroke="${i % 5 === 0 ? "#d0d0d0" : "#ececec"}"/>`);
    out.push(`<text x="${M.left - 8}" y="${(Number(gy) + 4).toFixed(1)}" text-anchor="end" fill="#444">${(i / 10).toFixed(1)}</text>`);
  }
  out.push(`<line x1="${M.left}" y1="${y(0.99).toFixed(1)}" x2="${M.left + plotW}" y2="${y(0.99).toFixed(1)}" stroke="#999" stroke-dasharray="2 3"/>`);
  out.push(`<text x="${M.left + plotW - 4}" y="${(y(0.99) - 4).toFixed(1)}" text-anchor="end" fill="#777">p99</text>`);
  out.push(`<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${M.left + plotW / 2}" y="${M.top + plotH + 36}" text-anchor="middle" fill="#222">latency, ms (log scale)</text>`);
  out.push(`<text transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#222">fraction of samples at or below</text>`);
  for (const c of curves) {
    // A step function: each sample's quantile is reached at its latency.
    let d = "";
    let prevQ = 0;
    for (const [q, ms] of c.points) {
      const px = x(ms).toFixed(1);
      d += d ? ` L${px},${y(prevQ).toFixed(1)} L${px},${y(q).toFixed(1)}` : `M${px},${y(0).toFixed(1)} L${px},${y(q).toFixed(1)}`;
      prevQ = q;
    }
    out.push(`<path d="${d}" fill="none" stroke="${c.color}" stroke-width="2"${c.dashed ? ' stroke-dasharray="6 4"' : ""}/>`);
  }
  // Legend under the plot, two columns, so it never hides a curve.
  curves.forEach((c, i) => {
    const lx = M.left + (i % 2) * (plotW / 2);
    const ly = H - LEGEND_H + 16 + Math.floor(i / 2) * 18;
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 24}" y2="${ly - 4}" stroke="${c.color}" stroke-width="2"${c.dashed ? ' stroke-dasharray="6 4"' : ""}/>`);
    out.push(`<text x="${lx + 30}" y="${ly}" fill="#222">${esc(c.label)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
