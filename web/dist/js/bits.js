// The bit bars (the three layouts) and the panel with the bits of the latest ID(s).
import { esc, clockText, kindTitle } from './dom.js';

/** Draws one bar per layout; kinds in `current` get a frame. */
export function renderBars(container, layouts, current) {
  container.innerHTML = layouts
    .map((l) => {
      const segs = l.fields
        .map(
          (f) =>
            `<div class="seg role-${esc(f.role)}" style="flex:${f.width} 1 0" title="${esc(f.name)}: ${f.width} bits">` +
            `<span class="long">${esc(f.name)} ${f.width}</span><span class="short">${f.width}</span></div>`,
        )
        .join('');
      const legend = l.fields
        .map((f) => `<span><i class="role-${esc(f.role)}"></i>${esc(f.name)} ${f.width}</span>`)
        .join('');
      const on = current.includes(l.kind) ? ' current' : '';
      return (
        `<div class="bar-block${on}" data-kind="${esc(l.kind)}">` +
        `<div class="bar-title"><b>${esc(l.title)}</b><span>${l.bits} bits</span></div>` +
        `<div class="bar" role="img" aria-label="${esc(l.title)}: ${l.fields
          .map((f) => `${esc(f.name)} ${f.width}`)
          .join(', ')}">${segs}</div>` +
        `<div class="legend">${legend}</div></div>`
      );
    })
    .join('');
  fitSegments(container);
}

// Field names whose values differ between two IDs of the same kind.
function differing(entries) {
  if (entries.length !== 2 || entries[0].kind !== entries[1].kind) return new Set();
  const [a, b] = entries;
  return new Set(a.fields.filter((f, i) => f.value !== b.fields[i].value).map((f) => f.name));
}

function card(entry, diff) {
  const bits = entry.fields
    .map((f) => {
      const cls = `f-${f.role}${diff.has(f.name) ? ' diff' : ''}`;
      return `<span class="${cls}" title="${esc(f.name)}">${entry.bits.slice(f.start, f.start + f.width)}</span>`;
    })
    .join('');
  const rows = entry.fields
    .map(
      (f) =>
        `<tr class="${diff.has(f.name) ? 'diff' : ''}" data-field="${esc(f.name)}"><td>${esc(f.name)}</td><td>${f.width}</td>` +
        `<td class="v">${esc(f.value)}</td><td>${esc(f.detail || '')}</td></tr>`,
    )
    .join('');
  const waited = entry.waited_ms ? ` · <b class="no">waited ${entry.waited_ms} ms</b>` : '';
  return (
    `<div class="idcard" data-n="${entry.n}" data-kind="${esc(entry.kind)}">` +
    `<header><span><span class="chip ${esc(entry.machine)}">${esc(entry.machine)}</span> ` +
    `<b>#${entry.n}</b> ${esc(kindTitle(entry.kind))}</span>` +
    `<span class="muted">clock ${clockText(entry.clock_ms)}${waited}</span></header>` +
    `<div class="idtext">${esc(entry.id_str)}</div>` +
    `<div class="bits" aria-label="${entry.bits.length} bits">${bits}</div>` +
    `<table class="fields"><thead><tr><th>field</th><th>bits</th><th>value</th><th>meaning</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`
  );
}

/** Shows a segment's name only where it fits (else its width alone; the legend names it). */
export function fitSegments(container) {
  for (const seg of container.querySelectorAll('.seg')) {
    seg.classList.remove('tight');
    const long = seg.querySelector('.long');
    if (long.scrollWidth > seg.clientWidth - 4) seg.classList.add('tight');
  }
}

/** Shows the bits and fields of entries (1 or 2 IDs); fields that differ are highlighted. */
export function renderLatest(container, entries) {
  const ids = entries.filter((e) => e && e.type === 'id');
  if (!ids.length) {
    container.innerHTML = '<p class="muted">No ID yet.</p>';
    return;
  }
  const diff = differing(ids);
  const note = diff.size
    ? `<p class="small">Highlighted: the fields that differ (${[...diff].map(esc).join(', ')}).</p>`
    : '';
  container.innerHTML = note + ids.map((e) => card(e, diff)).join('');
}
