// The canvas: machines M1 and M2 with their clocks and policies, the table they insert
// into, and an arrow for the latest request (an ID, a wait, or a refusal).
import { clockText, kindTitle, num } from './dom.js';

const COLORS = { M1: '#2f6fde', M2: '#d4570f', ink: '#1c2430', muted: '#5b6675', bad: '#c42b2b', line: '#c9d1db' };

/** What the canvas shows, derived from the log entries and the trees; elided = IDs left
 *  out of the log, {machine, count}. */
export function stageModel(kind, entries, trees, elided) {
  const machines = {};
  for (const name of ['M1', 'M2'])
    machines[name] = { name, node: name === 'M1' ? 1 : 2, clock: null, offset: 0, ids: 0, last: null,
      policy: kind === 'snowflake' ? 'refuse if behind' : 'none needed' };
  let last = null;
  let now = 0;
  for (const e of entries) {
    const m = machines[e.machine];
    if (!m) continue;
    m.clock = e.clock_ms + (e.waited_ms || 0);
    now = e.at_ms + (e.waited_ms || 0);
    if (e.type === 'clock_step') m.offset += e.delta_ms;
    if (e.type === 'policy') m.policy = `wait up to ${e.max_wait_ms} ms`;
    if (e.type === 'id') {
      m.ids += 1;
      m.last = e.id_str;
    }
    if (e.type === 'id' || e.type === 'refused') last = e;
  }
  if (elided && machines[elided.machine]) machines[elided.machine].ids += elided.count;
  const tables = trees.map((t) => ({ title: t.title || kindTitle(t.tree.kind), rows: t.tree.stats.inserts, leaves: t.tree.stats.leaves }));
  return { kind: entries.length ? entries[entries.length - 1].kind : kind, machines, last, now, tables };
}

// Text cut to fit width px: IDs keep their end (where they differ), other lines their start.
function fit(ctx, text, width, keepEnd) {
  if (ctx.measureText(text).width <= width) return text;
  let t = text;
  if (keepEnd) {
    while (t.length > 1 && ctx.measureText(`…${t}`).width > width) t = t.slice(1);
    return `…${t}`;
  }
  while (t.length > 1 && ctx.measureText(`${t}…`).width > width) t = t.slice(0, -1);
  return `${t}…`;
}

export class Stage {
  constructor(canvas) {
    this.canvas = canvas;
    this.model = null;
    this.progress = 1;
    window.addEventListener('resize', () => this.draw());
  }

  /** Shows model; with animate, the request travels to the table. Resolves when done. */
  show(model, animate) {
    this.model = model;
    const reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (!animate || reduce || !model.last) {
      this.progress = 1;
      this.draw();
      return Promise.resolve();
    }
    const start = performance.now();
    const duration = 320;
    return new Promise((resolve) => {
      const frame = (t) => {
        this.progress = Math.min(1, (t - start) / duration);
        this.draw();
        if (this.progress < 1) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
  }

  draw() {
    const c = this.canvas;
    const W = Math.max(280, Math.round(c.clientWidth || 640));
    const narrow = W < 520;
    const H = narrow ? 262 : 252;
    const dpr = window.devicePixelRatio || 1;
    if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) {
      c.width = Math.round(W * dpr);
      c.height = Math.round(H * dpr);
      c.style.height = `${H}px`;
    }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const m = this.model;
    if (!m) return;
    const pad = 12;
    const bw = (W - 3 * pad) / 2;
    const bh = narrow ? 122 : 114;
    const top = 30;
    ctx.textBaseline = 'alphabetic';
    ctx.fillStyle = COLORS.muted;
    ctx.font = '13px system-ui, sans-serif';
    ctx.fillText(`${kindTitle(m.kind)} · time +${m.now} ms · one request per ms`, pad, 19);

    const active = m.last ? m.last.machine : null;
    const boxes = {};
    ['M1', 'M2'].forEach((name, i) => {
      const x = pad + i * (bw + pad);
      boxes[name] = { x, y: top, w: bw, h: bh };
      this.machine(ctx, m.machines[name], boxes[name], name === active, m, narrow);
    });

    // The table, bottom centre.
    const tw = Math.min(300, W - 2 * pad);
    const th = 22 + 18 * Math.max(1, m.tables.length);
    const tx = (W - tw) / 2;
    const ty = H - th - 8;
    ctx.fillStyle = '#f1f4f8';
    ctx.strokeStyle = COLORS.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.roundRect(tx, ty, tw, th, 6);
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = COLORS.ink;
    ctx.font = '600 13px system-ui, sans-serif';
    ctx.fillText('table (primary key index)', tx + 10, ty + 17);
    ctx.font = '13px system-ui, sans-serif';
    const tables = m.tables.length ? m.tables : [{ title: kindTitle(m.kind), rows: 0, leaves: 1 }];
    tables.forEach((t, i) => {
      ctx.fillText(`${t.title}: ${num(t.rows)} rows, ${num(t.leaves)} leaf ${t.leaves === 1 ? 'page' : 'pages'}`, tx + 10, ty + 35 + 18 * i);
    });

    if (!m.last) return;
    // The latest request: an arrow from its machine to the table.
    const b = boxes[active];
    const x0 = b.x + b.w / 2;
    const y0 = b.y + b.h;
    const x1 = tx + tw / 2 + (active === 'M1' ? -40 : 40);
    const y1 = ty - 2;
    const refused = m.last.type === 'refused';
    const p = this.progress;
    const reach = refused ? 0.55 : 1;
    const xe = x0 + (x1 - x0) * p * reach;
    const ye = y0 + (y1 - y0) * p * reach;
    ctx.strokeStyle = refused ? COLORS.bad : COLORS[active];
    ctx.lineWidth = 2.5;
    ctx.setLineDash(refused ? [6, 4] : []);
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(xe, ye);
    ctx.stroke();
    ctx.setLineDash([]);
    if (p >= 1) {
      ctx.fillStyle = refused ? COLORS.bad : COLORS[active];
      ctx.font = '700 13px system-ui, sans-serif';
      const label = refused
        ? `✕ refused: ${m.last.behind_ms} ms behind`
        : `#${num(m.last.n)}${m.last.waited_ms ? ` after waiting ${m.last.waited_ms} ms` : ''}`;
      const lw = ctx.measureText(label).width;
      const lx = Math.min(Math.max(pad, (x0 + xe) / 2 - lw / 2), W - pad - lw);
      const ly = (y0 + ye) / 2 + 4;
      ctx.fillStyle = 'rgba(255,255,255,0.9)';
      ctx.fillRect(lx - 3, ly - 13, lw + 6, 17);
      ctx.fillStyle = refused ? COLORS.bad : COLORS[active];
      ctx.fillText(label, lx, ly);
    } else {
      ctx.fillStyle = COLORS[active];
      ctx.beginPath();
      ctx.arc(xe, ye, 5, 0, Math.PI * 2);
      ctx.fill();
    }
  }

  machine(ctx, mc, box, active, model, narrow) {
    const refused = active && model.last && model.last.type === 'refused';
    ctx.fillStyle = active ? '#ffffff' : '#fafbfc';
    ctx.strokeStyle = refused ? COLORS.bad : active ? COLORS[mc.name] : COLORS.line;
    ctx.lineWidth = active ? 3 : 1;
    ctx.beginPath();
    ctx.roundRect(box.x, box.y, box.w, box.h, 8);
    ctx.fill();
    ctx.stroke();
    const x = box.x + 10;
    let y = box.y + 22;
    ctx.fillStyle = COLORS[mc.name];
    ctx.font = '700 17px system-ui, sans-serif';
    ctx.fillText(mc.name, x, y);
    ctx.fillStyle = COLORS.muted;
    ctx.font = '12px system-ui, sans-serif';
    if (model.kind === 'snowflake') ctx.fillText(`machine id ${mc.node}`, x + 34, y);
    const lines = [];
    lines.push([mc.clock === null ? 'clock not read yet' : `clock ${clockText(mc.clock)}`, COLORS.ink]);
    if (mc.offset) lines.push([`stepped ${mc.offset < 0 ? 'back' : 'ahead'} ${Math.abs(mc.offset)} ms`, COLORS.bad]);
    lines.push([`policy: ${mc.policy}`, COLORS.ink]);
    lines.push([`IDs made: ${num(mc.ids)}`, COLORS.ink]);
    if (mc.last) lines.push([`last ${mc.last}`, COLORS.muted, true]);
    ctx.font = `${narrow ? 11 : 13}px ui-monospace, "DejaVu Sans Mono", monospace`;
    for (const [text, color, keepEnd] of lines.slice(0, 5)) {
      y += narrow ? 17 : 16;
      if (y > box.y + box.h - 4) break;
      ctx.fillStyle = color;
      ctx.fillText(fit(ctx, text, box.w - 20, keepEnd), x, y);
    }
  }
}
