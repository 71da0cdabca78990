// The log: every step in creation order, IDs numbered as the tree numbers them.
import { esc, num, clockText, kindTitle } from './dom.js';

function row(e, showKind) {
  const tag = showKind ? `<span class="kindtag">${esc(kindTitle(e.kind))}</span>` : '';
  const who = `<span><span class="chip ${esc(e.machine)}">${esc(e.machine)}</span></span>`;
  const t = `<span class="t">+${e.at_ms} ms</span>`;
  switch (e.type) {
    case 'id': {
      const waited = e.waited_ms ? ` class="waited" data-wait="waited ${e.waited_ms} ms"` : '';
      return `<li${waited} data-n="${e.n}"><span class="n">#${e.n}</span>${who}${t}<span class="id">${tag}${esc(e.id_str)}</span></li>`;
    }
    case 'refused':
      return (
        `<li class="refused"><span class="n">✕</span>${who}${t}<span class="id">refused: clock ${e.behind_ms} ms behind ` +
        `<span class="small">(${esc(e.message)})</span></span></li>`
      );
    case 'clock_step':
      return (
        `<li class="note"><span class="n">⟲</span>${who}${t}<span>clock stepped ${e.delta_ms < 0 ? 'back' : 'forward'} ` +
        `${Math.abs(e.delta_ms)} ms, now reads ${clockText(e.clock_ms)}</span></li>`
      );
    case 'policy':
      return (
        `<li class="note"><span class="n">⚙</span>${who}${t}<span>policy set to wait (up to ${e.max_wait_ms} ms); ` +
        `the new generator starts above the last millisecond issued</span></li>`
      );
    default:
      return '';
  }
}

/** Fills the list; gap = {after, count} puts "… count more …" after that many rows. */
export function renderLog(list, entries, gap) {
  const kinds = new Set(entries.map((e) => e.kind));
  const rows = entries.map((e) => row(e, kinds.size > 1));
  if (gap && gap.count > 0)
    rows.splice(gap.after, 0, `<li class="gap">… ${num(gap.count)} more IDs in the same millisecond …</li>`);
  list.innerHTML = rows.join('') || '<li class="gap">No requests yet.</li>';
  list.scrollTop = list.scrollHeight;
}
