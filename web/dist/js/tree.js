// The primary key index: leaf pages left to right, each key drawn with its creation
// number (coloured by the machine that made it), and the scoreboard under each tree.
import { esc, num, kindTitle } from './dom.js';

const pct = (fill) => `${Math.round(fill * 100)}%`;

function leafHtml(leaf, capacity, newest) {
  const slots = [];
  for (let i = 0; i < capacity; i += 1) {
    const k = leaf.keys[i];
    if (!k) {
      slots.push('<span class="slot empty" aria-hidden="true"></span>');
      continue;
    }
    const cls = `slot full ${k.machine === 'M1' ? 'role-m1' : 'role-m2'}${k.n === newest ? ' new' : ''}`;
    slots.push(
      `<span class="${cls}" style="background:var(--${k.machine === 'M1' ? 'm1' : 'm2'})" data-n="${k.n}" ` +
        `title="#${k.n} from ${esc(k.machine)}: ${esc(k.id_str)}">${k.n}</span>`,
    );
  }
  return (
    `<div class="leaf" data-leaf="${leaf.leaf_no}" data-keys="${leaf.keys.length}" ` +
    `aria-label="leaf page p${leaf.leaf_no}: keys ${leaf.keys.map((k) => `#${k.n}`).join(' ') || 'none'}">` +
    `<div class="pg">p${leaf.leaf_no}</div><div class="slots">${slots.join('')}</div></div>`
  );
}

function treeHtml(title, tree) {
  const s = tree.stats;
  const newest = s.inserts;
  const omitted = tree.omitted_leaves
    ? `<span class="omitted">… ${num(tree.omitted_leaves)} full leaves to the left</span>`
    : '';
  let root = '<div class="root">the root is the only leaf</div>';
  if (s.height === 2) root = `<div class="root">root page: ${num(s.leaves)} leaf pointers</div>`;
  else if (s.height > 2)
    root = `<div class="root">${num(s.interior_pages)} interior pages in ${s.height - 1} levels above the leaves</div>`;
  return (
    `<div class="tree" data-kind="${esc(tree.kind)}"><h3>${esc(title || kindTitle(tree.kind))}</h3>${root}` +
    `<div class="leaves">${omitted}${tree.leaves.map((l) => leafHtml(l, tree.leaf_capacity, newest)).join('')}</div>` +
    `<dl class="score" aria-label="${esc(title)} scoreboard">` +
    `<div><dt>splits</dt><dd data-stat="splits">${num(s.splits)}</dd></div>` +
    `<div><dt>page writes</dt><dd data-stat="page_writes">${num(s.page_writes)}</dd></div>` +
    `<div><dt>leaves</dt><dd data-stat="leaves">${num(s.leaves)}</dd></div>` +
    `<div><dt>leaf fill</dt><dd data-stat="leaf_fill">${pct(s.leaf_fill)}</dd></div>` +
    `</dl></div>`
  );
}

/** Draws trees: [{title, tree}] (one, or two side by side). */
export function renderTrees(container, trees) {
  if (!trees.length || trees.every((t) => t.tree.stats.inserts === 0)) {
    container.innerHTML = '<p class="muted">The table is empty.</p>';
    return;
  }
  container.innerHTML =
    `<div class="trees${trees.length > 1 ? ' two' : ''}">` +
    trees.map((t) => treeHtml(t.title, t.tree)).join('') +
    '</div>';
}
