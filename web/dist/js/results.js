// "What happened": each demo's outcome in words, from the numbers the server measured.
import { esc, num, kindTitle } from './dom.js';

const plural = (n, what) => `${num(n)} ${what}${n === 1 ? '' : 's'}`;
const pct = (x) => `${Math.round(x * 100)}%`;
const andList = (names) =>
  names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

function demo1(d) {
  const [a, b] = d.latest;
  const { differing_fields: diff, same_fields: same } = d.result;
  return (
    `<p class="headline">M1 made <code>${esc(a.id_str)}</code>; M2 made <code>${esc(b.id_str)}</code>, ` +
    `${b.at_ms - a.at_ms} ms later.</p>` +
    `<p data-check="demo1">The two IDs differ only in the ${andList(diff.map((f) => `<b>${esc(f)}</b>`))} fields ` +
    `(highlighted in the bits panel); ${andList(same.map(esc))} are the same.</p>`
  );
}

function demo2(d) {
  const r = d.result;
  const perMs = r.issued_without_waiting;
  return (
    `<p class="headline">M1 got <b>${num(r.requests)}</b> requests in one millisecond.</p>` +
    `<p data-check="demo2">The first ${num(perMs)} took sequence 0 to ${num(perMs - 1)}. Request #${num(r.last.n)} ` +
    `found the sequence used up, <b>waited ${r.last.waited_ms} ms</b> for the next millisecond and got sequence ` +
    `${esc(r.last.sequence)}, ${r.last.timestamp_after_first_ms} ms later in its timestamp.</p>` +
    `<p>${num(r.distinct)} distinct IDs out of ${num(r.requests)}; requests that waited: ${num(r.waited_requests)}.</p>`
  );
}

function demo3(d) {
  const r = d.result;
  const parts = [`<p class="headline">M2's clock was stepped back <b>${Math.abs(r.step_ms)} ms</b>.</p>`];
  if (r.refused)
    parts.push(
      `<p data-check="demo3-refused">Its next request was <b class="no">refused</b>: the clock was ` +
        `<b>${r.refused.behind_ms} ms behind</b> its last ID.<br><span class="small muted">${esc(r.refused.message)}</span></p>`,
    );
  else parts.push('<p class="no">M2 was not refused.</p>');
  if (r.waited)
    parts.push(
      `<p data-check="demo3-waited">With the policy set to wait, the following request <b>waited ${r.waited.waited_ms} ms</b> ` +
        `and <b class="ok">succeeded</b>: #${r.waited.n} <code>${esc(r.waited.id_str)}</code>.</p>`,
    );
  parts.push('<p class="small muted">M1\'s clock was not touched: it made its IDs as before.</p>');
  return parts.join('');
}

function sortedTable(t) {
  const rows = t.rows
    .map((row, i) => {
      const inOrder = i === 0 ? null : t.rows[i - 1].n < row.n;
      const cls = inOrder === null ? '' : inOrder ? 'in' : 'out';
      const mark = inOrder === null ? '' : inOrder ? '✓' : '✗';
      return `<tr class="${cls}"><td class="mark">${mark}</td><td class="n">#${row.n}</td><td>${esc(row.machine)}</td><td class="id">${esc(row.id_str)}</td></tr>`;
    })
    .join('');
  const all = t.pairs_in_order === t.pairs;
  return (
    `<div class="sorted-one" data-kind="${esc(t.kind)}"><h3>${esc(kindTitle(t.kind))} table, sorted by ID</h3>` +
    `<p data-check="demo4-${esc(t.kind)}">Creation order kept in <b class="${all ? 'ok' : 'no'}">` +
    `${t.pairs_in_order} of ${t.pairs} pairs</b>${all ? ': sorted by ID is sorted by time.' : '.'}</p>` +
    `<table><thead><tr><th></th><th>#</th><th>by</th><th>ID</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

function demo4(d) {
  return (
    '<p class="headline">M1 and M2 made 8 UUIDv7 and 8 UUIDv4 keys, taking turns 1 ms apart. ' +
    'Each table below is sorted by ID, as its primary key index sorts it; ✓ marks a row made after the one above it.</p>' +
    `<div class="sorted">${d.result.tables.map(sortedTable).join('')}</div>`
  );
}

function demo5(d) {
  const [v7, v4] = d.trees.map((t) => ({ title: t.title, s: t.tree.stats }));
  const line = (t) =>
    `<b>${esc(t.title)}</b>: ${num(t.s.leaves)} leaves, ${num(t.s.splits)} splits, ${num(t.s.page_writes)} page writes, ` +
    `leaves ${pct(t.s.leaf_fill)} full.`;
  const parts = [
    `<p class="headline">${d.result.keys} keys of each kind, M1 and M2 taking turns.</p>`,
    `<p data-check="demo5-v7">${line(v7)}</p>`,
    `<p data-check="demo5-v4">${line(v4)}</p>`,
  ];
  if (v4.s.splits > v7.s.splits && v4.s.page_writes > v7.s.page_writes && v4.s.leaf_fill < 1)
    parts.push(
      `<p data-check="demo5-compare">UUIDv4 needed <b>${plural(v4.s.splits - v7.s.splits, 'more split')}</b> and ` +
        `<b>${plural(v4.s.page_writes - v7.s.page_writes, 'more page write')}</b>, and its leaves are only ` +
        `<b>${pct(v4.s.leaf_fill)}</b> full: random keys split pages all over the index.</p>`,
    );
  else
    parts.push(
      `<p data-check="demo5-lucky">This time the 12 random keys happened to arrive in an order that split no more ` +
        'than the time-ordered ones; the runs below show how rare that is. Press Demo 5 again for fresh keys.</p>',
    );
  const trials = d.result.trials
    .map((t) => {
      const hist = t.histogram.map((h) => `${h.splits} splits: ${num(h.runs)}`).join(' · ');
      return (
        `<li><b>${esc(kindTitle(t.kind))}</b>: ${t.mean_splits.toFixed(2)} splits and ` +
        `${t.mean_page_writes.toFixed(1)} page writes on average, leaves ${pct(t.mean_leaf_fill)} full ` +
        `<span class="muted">(${hist})</span></li>`
      );
    })
    .join('');
  parts.push(
    `<p class="hist">The same ${d.result.keys} inserts repeated ${num(d.result.trials[0].runs)} times with fresh IDs:</p>` +
      `<ul class="hist">${trials}</ul>`,
  );
  return parts.join('');
}

const RENDER = { 1: demo1, 2: demo2, 3: demo3, 4: demo4, 5: demo5 };

/** The result text of demo d (the JSON of /v1/sim/demo/{n}). */
export const resultHtml = (d) => `<h3 class="small muted">Demo ${d.demo}</h3>${RENDER[d.demo](d)}`;
