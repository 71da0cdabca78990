// Wiring: the kind switch, the request buttons, the demo buttons. State lives here; the
// numbers come from the server (api.js), the drawing from the other modules.
import { fetchDemo, fetchLayouts, fetchRun } from './api.js';
import { fitSegments, renderBars, renderLatest } from './bits.js';
import { esc, kindTitle, num } from './dom.js';
import { renderLog } from './log.js';
import { resultHtml } from './results.js';
import { Stage, stageModel } from './stage.js';
import { renderTrees } from './tree.js';

const $ = (sel) => document.querySelector(sel);
const app = $('#app');
const el = {
  bars: $('#bars-body'),
  latest: $('#latest-body'),
  log: $('#log-body'),
  index: $('#index-body'),
  result: $('#result-body'),
  caption: $('#stage-caption'),
  next: $('#btn-next'),
  play: $('#btn-play'),
  reset: $('#btn-reset'),
  demos: [...document.querySelectorAll('button.demo')],
  kinds: [...document.querySelectorAll('input[name="kind"]')],
};
const stage = new Stage($('#machines'));

// Requests fetched per run; Next reveals them one at a time.
const RUN_LENGTH = 64;
const PLAY_STEPS = 12;
const PLAY_DELAY_MS = 380;

const state = { layouts: [], kind: 'snowflake', run: null, shown: 0, timer: null, demo: 0 };

function busy(on) {
  app.dataset.state = on ? 'busy' : 'idle';
  app.setAttribute('aria-busy', on ? 'true' : 'false');
}

function showError(err) {
  el.result.innerHTML = `<p class="no">The server did not answer as expected: ${esc(err.message)}</p>`;
}

function markDemo(n) {
  state.demo = n;
  app.dataset.demo = n ? String(n) : '';
  for (const b of el.demos) {
    const on = Number(b.dataset.demo) === n;
    b.classList.toggle('active', on);
    b.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
}

function setKindRadio(kind) {
  for (const input of el.kinds) input.checked = input.value === kind;
}

function caption(entry) {
  if (!entry) return 'Press <b>Next request</b>, <b>Play 12</b> or a demo.';
  if (entry.type === 'refused')
    return `<b class="no">${esc(entry.machine)} refused</b> a request: its clock is ${entry.behind_ms} ms behind its last ID.`;
  const wait = entry.waited_ms ? `, after waiting ${entry.waited_ms} ms,` : '';
  return `<b>${esc(entry.machine)}</b>${wait} made ${esc(kindTitle(entry.kind))} #${num(entry.n)} at +${entry.at_ms} ms.`;
}

function lastRequest(entries) {
  for (let i = entries.length - 1; i >= 0; i -= 1)
    if (entries[i].type === 'id' || entries[i].type === 'refused') return entries[i];
  return null;
}

// Run mode: the first `shown` steps of the current run.
async function showRun(animate) {
  const steps = state.run ? state.run.steps.slice(0, state.shown) : [];
  const entries = steps.map((s) => s.entry);
  const trees = steps.length ? [{ title: kindTitle(state.kind), tree: steps[steps.length - 1].tree }] : [];
  app.dataset.shown = String(state.shown);
  renderBars(el.bars, state.layouts, [state.kind]);
  renderLog(el.log, entries);
  renderLatest(el.latest, entries.slice(-1));
  renderTrees(el.index, trees);
  el.caption.innerHTML = caption(lastRequest(entries));
  el.next.disabled = state.run !== null && state.shown >= state.run.steps.length;
  await stage.show(stageModel(state.kind, entries, trees), animate);
}

async function ensureRun() {
  if (!state.run) {
    state.run = await fetchRun(state.kind, RUN_LENGTH);
    state.shown = 0;
  }
}

function leaveDemo() {
  if (state.demo) {
    markDemo(0);
    el.result.innerHTML = '<p class="muted">Each demo explains its result here.</p>';
  }
}

function stopPlay() {
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  el.play.disabled = false;
}

async function next() {
  stopPlay();
  busy(true);
  try {
    if (state.demo) {
      leaveDemo();
      state.run = null;
    }
    await ensureRun();
    if (state.shown < state.run.steps.length) state.shown += 1;
    await showRun(true);
  } catch (err) {
    showError(err);
  }
  busy(false);
}

async function play() {
  stopPlay();
  busy(true);
  try {
    if (state.demo) {
      leaveDemo();
      state.run = null;
    }
    await ensureRun();
  } catch (err) {
    showError(err);
    busy(false);
    return;
  }
  el.play.disabled = true;
  const until = Math.min(state.run.steps.length, state.shown + PLAY_STEPS);
  const tick = async () => {
    state.shown += 1;
    await showRun(true);
    if (state.shown < until && el.play.disabled) state.timer = setTimeout(tick, PLAY_DELAY_MS);
    else {
      stopPlay();
      busy(false);
    }
  };
  if (state.shown < until) tick();
  else {
    stopPlay();
    busy(false);
  }
}

async function reset() {
  stopPlay();
  busy(true);
  leaveDemo();
  state.run = null;
  state.shown = 0;
  await showRun(false);
  busy(false);
}

async function runDemo(n) {
  stopPlay();
  busy(true);
  markDemo(n);
  try {
    const d = await fetchDemo(n);
    state.kind = d.kind;
    state.run = null;
    state.shown = 0;
    setKindRadio(d.kind);
    renderBars(el.bars, state.layouts, [...new Set(d.trees.map((t) => t.tree.kind))]);
    renderLog(el.log, d.log, d.log_elided ? { after: d.log_elided_after, count: d.log_elided } : null);
    renderLatest(el.latest, d.latest);
    renderTrees(el.index, d.trees);
    el.result.innerHTML = resultHtml(d);
    el.caption.innerHTML = caption(lastRequest(d.log));
    el.next.disabled = false;
    const elided = d.log_elided ? { machine: d.log_elided_machine, count: d.log_elided } : null;
    await stage.show(stageModel(d.kind, d.log, d.trees, elided), true);
  } catch (err) {
    showError(err);
  }
  busy(false);
}

async function start() {
  busy(true);
  window.addEventListener('resize', () => fitSegments(el.bars));
  el.next.addEventListener('click', next);
  el.play.addEventListener('click', play);
  el.reset.addEventListener('click', reset);
  for (const b of el.demos) b.addEventListener('click', () => runDemo(Number(b.dataset.demo)));
  for (const input of el.kinds)
    input.addEventListener('change', () => {
      if (!input.checked) return;
      state.kind = input.value;
      reset();
    });
  try {
    const { layouts } = await fetchLayouts();
    state.layouts = layouts;
  } catch (err) {
    showError(err);
  }
  await showRun(false);
  busy(false);
}

start();
