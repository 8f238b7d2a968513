"""The loss curve of a scripts/train-tiny-model run as a small self-contained
SVG (no plotting library needed): training loss per logged step and the
validation loss where it was measured, against training tokens.

  /usr/bin/python3 scripts/lib/plot_loss.py WORK/loss.tsv OUT.svg [--tokens-per-step N] [--title T] [--mark STEP]
"""
import argparse
import math


def read_curve(path):
    rows = []
    with open(path) as f:
        next(f)  # header: step, train_loss, val_loss, seconds
        for line in f:
            step, train, val, secs = line.split("\t")
            rows.append((int(step), float(train), float(val), float(secs)))
    return rows


def nice_ticks(lo, hi, n=5):
    span = hi - lo
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=mag * 10)
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def svg(rows, tokens_per_step, title, mark=None):
    W, H, L, R, T, B = 640, 360, 64, 20, 40, 52
    xs = [r[0] * tokens_per_step / 1e6 for r in rows]
    train = [r[1] for r in rows]
    vals = [(x, r[2]) for x, r in zip(xs, rows) if not math.isnan(r[2])]
    ylo = math.floor(min(train + [v for _, v in vals]) * 2) / 2
    yhi = math.ceil(min(max(train), 8.5) * 2) / 2
    xhi = max(xs)

    def px(x):
        return L + (W - L - R) * x / xhi

    def py(y):
        y = min(max(y, ylo), yhi)
        return T + (H - T - B) * (yhi - y) / (yhi - ylo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="DejaVu Sans, sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>']
    for t in nice_ticks(ylo, yhi):
        y = py(t)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in nice_ticks(0, xhi):
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{t:g}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">training tokens (millions)</text>')
    out.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(T + H - B) / 2})">loss (nats/token)</text>')
    pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, train))
    out.append(f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
    if vals:
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in vals)
        out.append(f'<polyline points="{pts}" fill="none" stroke="#d62728" stroke-width="2"/>')
        for x, y in vals:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="#d62728"/>')
    if mark:
        x = px(mark * tokens_per_step / 1e6)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#2ca02c" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x - 4:.1f}" y="{H - B - 8}" text-anchor="end" fill="#2ca02c">exported: step {mark}</text>')
    lx = W - R - 190
    out.append(f'<rect x="{lx}" y="{T + 10}" width="176" height="44" fill="white" stroke="#999"/>')
    out.append(f'<line x1="{lx + 10}" y1="{T + 26}" x2="{lx + 36}" y2="{T + 26}" stroke="#1f77b4" stroke-width="2"/>')
    out.append(f'<text x="{lx + 44}" y="{T + 30}">training (logged mean)</text>')
    out.append(f'<line x1="{lx + 10}" y1="{T + 44}" x2="{lx + 36}" y2="{T + 44}" stroke="#d62728" stroke-width="2"/>')
    out.append(f'<text x="{lx + 44}" y="{T + 48}">validation (held out)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tsv")
    ap.add_argument("out")
    ap.add_argument("--tokens-per-step", type=int, default=16 * 256)
    ap.add_argument("--title", default="tok-tiny-bible: loss by training tokens")
    ap.add_argument("--mark", type=int, help="draw a line at this step (the checkpoint exported)")
    a = ap.parse_args()
    with open(a.out, "w") as f:
        f.write(svg(read_curve(a.tsv), a.tokens_per_step, a.title, a.mark))


if __name__ == "__main__":
    main()
