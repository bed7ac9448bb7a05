// The play-and-watch page. Rules come from sokoban.js (checked against the Java engine by tests);
// the server supplies levels, checks replays and runs agents and the solver.
(function () {
  'use strict';
  const S = window.Sokoban;
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const CELL = 40;
  const SAMPLE = '########\n#      #\n# $ .  #\n#  @$. #\n# .$   #\n#      #\n########'; // solvable in 9 moves
  const ACTION_NAMES = ['noop', '↓ down', '↑ up', '← left', '→ right'];

  const st = {
    mode: 'play',
    level: null,        // {xsb, name, sha256, parsed}
    game: null,
    history: [],        // snapshots before each effective move
    actions: '',        // effective moves, letters
    solved: false,
    watch: null,        // {steps:[{letter, probs?, value?}], who, player, game, t, timer, solved}
  };

  // ------------------------------------------------------------ server calls
  async function api(path, body) {
    const init = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) throw new Error((data && data.error) || ('HTTP ' + res.status));
    return data;
  }

  function showMessage(text, kind) {
    const m = $('message');
    if (!text) { m.hidden = true; m.textContent = ''; return; }
    m.hidden = false;
    m.textContent = text;
    m.className = 'message' + (kind === 'info' ? ' info' : '');
  }

  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  const pushWord = (n) => n + (n === 1 ? ' push' : ' pushes');

  function setStatus(text, state) {
    const s = $('status');
    s.textContent = text;
    s.dataset.state = state;
  }

  // ------------------------------------------------------------ drawing
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function draw(game, solved) {
    const svg = $('board');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!game) return;
    const w = game.width, h = game.height;
    svg.setAttribute('viewBox', `-4 -4 ${w * CELL + 8} ${h * CELL + 8}`);
    svg.style.maxWidth = Math.round((w * CELL + 8) * 1.5) + 'px'; // small boards: at most 60px a cell
    const inner = S.inside({ width: w, height: h, cells: game.cells, player: game.player });
    const near = (i) => { // a wall that touches the inside (8-neighbourhood) is drawn; far walls fade
      const r = Math.floor(i / w), c = i % w;
      for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
        const r2 = r + dr, c2 = c + dc;
        if (r2 >= 0 && c2 >= 0 && r2 < h && c2 < w && inner[r2 * w + c2]) return true;
      }
      return false;
    };
    const g = el('g', {}, svg);
    for (let i = 0; i < w * h; i++) {
      const x = (i % w) * CELL, y = Math.floor(i / w) * CELL, f = game.cells[i];
      if (f & S.WALL) {
        if (near(i)) {
          el('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 4, fill: '#3a4255', class: 'wall' }, g);
          el('rect', { x: x + 4, y: y + 4, width: CELL - 8, height: 5, rx: 2, fill: '#4a536a' }, g);
        }
        continue;
      }
      if (!inner[i]) continue;
      el('rect', { x, y, width: CELL, height: CELL, fill: '#eef0f5', stroke: '#e2e5ec', 'stroke-width': 1 }, g);
    }
    for (let i = 0; i < w * h; i++) {
      const x = (i % w) * CELL, y = Math.floor(i / w) * CELL, f = game.cells[i];
      const cx = x + CELL / 2, cy = y + CELL / 2;
      if (f & S.GOAL) el('circle', { cx, cy, r: 8, fill: 'none', stroke: '#d2573f', 'stroke-width': 3, class: 'goal' }, g);
      if (f & S.BOX) {
        const home = (f & S.GOAL) !== 0;
        el('rect', { x: x + 5, y: y + 5, width: CELL - 10, height: CELL - 10, rx: 5,
          fill: home ? '#4caf7a' : '#e0a84a', stroke: home ? '#2d7d52' : '#a8752a',
          'stroke-width': 2.5, class: home ? 'box home' : 'box' }, g);
        el('path', { d: `M${x + 11} ${y + 11} L${x + CELL - 11} ${y + CELL - 11} M${x + CELL - 11} ${y + 11} L${x + 11} ${y + CELL - 11}`,
          stroke: home ? '#2d7d52' : '#a8752a', 'stroke-width': 2, 'stroke-linecap': 'round', opacity: 0.55 }, g);
      }
      if (f & S.PLAYER) {
        el('circle', { cx, cy, r: 13, fill: '#3b6fd8', stroke: '#274c9a', 'stroke-width': 2, class: 'player' }, g);
        el('circle', { cx: cx - 4.5, cy: cy - 3, r: 2.3, fill: '#fff' }, g);
        el('circle', { cx: cx + 4.5, cy: cy - 3, r: 2.3, fill: '#fff' }, g);
      }
    }
    if (solved) el('rect', { x: -2, y: -2, width: w * CELL + 4, height: h * CELL + 4, rx: 8, fill: 'none', stroke: '#2f9e62', 'stroke-width': 4 }, svg);
  }

  // ------------------------------------------------------------ levels
  function setLevel(xsb, name, sha256) {
    let parsed;
    try { parsed = S.parseXsb(xsb); } catch (e) { showMessage('Cannot use this board: ' + e.message); return false; }
    stopWatch();
    st.level = { xsb, name, sha256, parsed };
    st.watch = null;
    $('level-name').textContent = name;
    $('level-id').textContent = sha256 ? 'sha256 ' + sha256.slice(0, 12) : '';
    $('level-id').title = sha256 || '';
    showMessage('');
    restart();
    renderWatch(); // redraws the board when the Watch view is showing
    return true;
  }

  async function loadBoxoban() {
    const q = new URLSearchParams({ split: $('split').value, file: $('file').value, index: $('index').value });
    try {
      const r = await api('/api/level?' + q);
      setLevel(r.level, r.address, r.sha256);
    } catch (e) { showMessage(e.message); }
  }

  async function loadRandom(source) {
    try {
      const r = await api('/api/random?' + new URLSearchParams({ source }));
      const m = /^(.*)\/(\d{3})\.txt#(\d+)$/.exec(r.address);
      if (m) { $('split').value = m[1]; $('file').value = +m[2]; $('index').value = +m[3]; }
      setLevel(r.level, r.address, r.sha256);
    } catch (e) { showMessage(e.message); }
  }

  async function loadPasted() {
    try {
      const r = await api('/api/parse', { text: $('paste').value, format: $('paste-format').value });
      setLevel(r.level, 'pasted board', r.sha256);
    } catch (e) { showMessage(e.message); }
  }

  // ------------------------------------------------------------ play
  function restart() {
    if (!st.level) return;
    st.game = new S.Game(st.level.parsed);
    st.history = [];
    st.actions = '';
    st.solved = st.game.isSolved();
    renderPlay();
  }

  function renderPlay() {
    if (st.mode !== 'play' || !st.game) return;
    const g = st.game;
    draw(g, st.solved);
    $('moves').textContent = g.moves;
    $('pushes').textContent = g.pushes;
    $('goals').textContent = g.boxesOnGoals() + '/' + g.boxCount();
    $('undo').disabled = st.history.length === 0;
    $('save-replay').disabled = st.actions.length === 0;
    $('banner').hidden = !st.solved;
    if (st.solved) {
      $('banner-detail').textContent = `${plural(g.moves, 'move')}, ${pushWord(g.pushes)}`;
      setStatus(`Solved in ${plural(g.moves, 'move')} and ${pushWord(g.pushes)}`, 'solved');
    } else {
      setStatus(st.actions.length ? 'Playing' : 'Your move', 'playing');
    }
  }

  function playMove(letter) {
    if (!st.game || st.solved) return;
    const before = st.game.snapshot();
    const what = st.game.move(letter);
    if (what === 'blocked') return;
    st.history.push(before);
    st.actions += letter;
    st.solved = st.game.isSolved();
    renderPlay();
  }

  function undo() {
    if (!st.history.length) return;
    st.game.restore(st.history.pop());
    st.actions = st.actions.slice(0, -1);
    st.solved = st.game.isSolved();
    renderPlay();
  }

  function download(obj) {
    // One line: the file is also a one-case JSONL batch for ./speedrun replay --batch.
    const blob = new Blob([JSON.stringify(obj) + '\n'], { type: 'application/json' });
    const a = document.createElement('a');
    const who = obj.player.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 30) || 'player';
    a.href = URL.createObjectURL(blob);
    a.download = `replay-${(st.level.sha256 || 'board').slice(0, 8)}-${who}.json`;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  function saveReplay() {
    if (!st.level || !st.actions) return;
    download({ level: st.level.xsb, actions: st.actions, player: $('player-name').value.trim() || 'human' });
  }

  const KEYS = {
    ArrowUp: 'U', ArrowDown: 'D', ArrowLeft: 'L', ArrowRight: 'R',
    w: 'U', s: 'D', a: 'L', d: 'R', W: 'U', S: 'D', A: 'L', D: 'R',
  };

  function onKey(e) {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' && t.type !== 'range' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (st.mode === 'play') {
      if (KEYS[e.key]) { e.preventDefault(); playMove(KEYS[e.key]); return; }
      if (e.key === 'z' || e.key === 'Z' || e.key === 'Backspace' || e.key === 'u') { e.preventDefault(); undo(); return; }
      if (e.key === 'r' || e.key === 'R') { e.preventDefault(); restart(); return; }
    } else {
      if (e.key === ' ') { e.preventDefault(); togglePlay(); return; }
      if (e.key === 'ArrowRight') { e.preventDefault(); stepWatch(1); return; }
      if (e.key === 'ArrowLeft') { e.preventDefault(); stepWatch(-1); return; }
    }
  }

  // ------------------------------------------------------------ watch (agent, solver, replay)
  function startWatch(steps, who, player) {
    stopWatch();
    st.watch = { steps, who, player, t: 0, game: new S.Game(st.level.parsed), timer: null };
    setMode('watch');
    renderWatch();
  }

  function watchGameAt(t) {
    const g = new S.Game(st.level.parsed);
    for (let i = 0; i < t; i++) if (st.watch.steps[i].letter) g.move(st.watch.steps[i].letter);
    return g;
  }

  function stepWatch(delta) {
    const w = st.watch;
    if (!w) return;
    const t = Math.max(0, Math.min(w.steps.length, w.t + delta));
    if (t === w.t) { if (delta > 0) stopWatch(); return; }
    if (delta === 1) {
      const s = w.steps[w.t];
      if (s.letter) w.game.move(s.letter);
    } else {
      w.game = watchGameAt(t);
    }
    w.t = t;
    if (w.t >= w.steps.length) stopWatch();
    renderWatch();
  }

  function togglePlay() {
    const w = st.watch;
    if (!w) return;
    if (w.timer) { stopWatch(); renderWatch(); return; }
    if (w.t >= w.steps.length) { w.t = 0; w.game = new S.Game(st.level.parsed); }
    const tick = () => {
      stepWatch(1);
      if (st.watch && st.watch.timer) st.watch.timer = setTimeout(tick, 1000 / +$('speed').value);
    };
    w.timer = setTimeout(tick, 1000 / +$('speed').value);
    renderWatch();
  }

  function stopWatch() {
    if (st.watch && st.watch.timer) { clearTimeout(st.watch.timer); st.watch.timer = null; }
  }

  function updateWatchPanel() {
    const has = !!st.watch;
    for (const id of ['w-first', 'w-back', 'w-play', 'w-step']) $(id).disabled = !has;
    $('save-watch').disabled = !has || !st.watch.steps.some((s) => s.letter);
    if (!has) {
      $('watch-who').textContent = st.level ? 'Choose who plays this level' : 'nothing loaded';
      $('w-t').textContent = 0;
      $('w-n').textContent = 0;
      $('agent-view').hidden = true;
    }
  }

  function renderWatch() {
    updateWatchPanel();
    if (st.mode !== 'watch') return;
    const w = st.watch;
    $('banner').hidden = true;
    if (!w) {
      if (st.level) draw(new S.Game(st.level.parsed), false);
      setStatus(st.level ? 'Choose who plays' : 'Choose a level', 'idle');
      return;
    }
    const solved = w.game.isSolved();
    draw(w.game, solved);
    $('watch-who').textContent = w.who;
    $('w-t').textContent = w.t;
    $('w-n').textContent = w.steps.length;
    $('w-play').textContent = w.timer ? '⏸ Pause' : '▶︎ Play';
    const agent = w.steps.length > 0 && w.steps[0].probs;
    $('agent-view').hidden = !agent;
    if (agent) renderAgent(w);
    const end = w.t >= w.steps.length;
    if (end) {
      $('banner').hidden = !solved;
      $('banner-detail').textContent = `${w.player}: ${plural(w.game.moves, 'move')}, ${pushWord(w.game.pushes)}`;
      setStatus(solved ? `Finished: solved in ${plural(w.steps.length, 'step')}` : `Finished: not solved after ${plural(w.steps.length, 'step')}`,
        solved ? 'finished-solved' : 'finished-unsolved');
    } else {
      setStatus(`${w.timer ? 'Playing' : 'Paused'} · step ${w.t} of ${w.steps.length}`, w.timer ? 'watching' : 'paused');
    }
  }

  function renderAgent(w) {
    const i = Math.min(w.t, w.steps.length - 1); // the decision about to be taken (or the last one)
    const s = w.steps[i];
    const box = $('probs');
    while (box.firstChild) box.removeChild(box.firstChild);
    s.probs.forEach((p, a) => {
      const row = document.createElement('div');
      row.className = 'prob' + (a === s.action ? ' chosen' : '');
      const name = document.createElement('span'); name.textContent = ACTION_NAMES[a];
      const bar = document.createElement('div'); bar.className = 'bar';
      const fill = document.createElement('div'); fill.className = 'fill'; fill.style.width = (p * 100).toFixed(1) + '%';
      bar.appendChild(fill);
      const num = document.createElement('span'); num.className = 'p'; num.textContent = p.toFixed(2);
      row.append(name, bar, num);
      box.appendChild(row);
    });
    $('value').textContent = s.value.toFixed(3);
    const plot = $('value-plot');
    while (plot.firstChild) plot.removeChild(plot.firstChild);
    const vals = w.steps.map((x) => x.value);
    let lo = Math.min(0, ...vals), hi = Math.max(1, ...vals);
    const n = Math.max(1, vals.length - 1);
    const X = (k) => (k / n) * 236 + 2, Y = (v) => 56 - ((v - lo) / (hi - lo)) * 52;
    el('line', { x1: 0, x2: 240, y1: Y(0), y2: Y(0), stroke: '#c8cdd8', 'stroke-width': 1 }, plot);
    el('polyline', { points: vals.map((v, k) => X(k).toFixed(1) + ',' + Y(v).toFixed(1)).join(' '), fill: 'none', stroke: '#3b6fd8', 'stroke-width': 1.5 }, plot);
    el('circle', { cx: X(i), cy: Y(vals[i]), r: 3, fill: '#d2573f' }, plot);
  }

  async function runAgent() {
    if (!st.level) return showMessage('Choose a level first.');
    const ckpt = $('checkpoint').value;
    if (!ckpt) return showMessage('No checkpoint to choose: train one (runs/) or add a record (records/).');
    showMessage('Running the agent…', 'info');
    try {
      const r = await api('/api/watch', { checkpoint: ckpt, level: st.level.xsb });
      showMessage('');
      const steps = r.steps.map((s) => ({ letter: S.ACTION_LETTERS[s.action], action: s.action, probs: s.probs, value: s.value }));
      startWatch(steps, `agent ${ckpt} (greedy) · ${r.solved ? 'solves at step ' + r.doneAt : 'does not solve'}`, 'agent ' + ckpt);
    } catch (e) { showMessage(e.message); }
  }

  async function runSolver() {
    if (!st.level) return showMessage('Choose a level first.');
    showMessage('Solving…', 'info');
    try {
      const r = await api('/api/solve', { level: st.level.xsb });
      showMessage('');
      startWatch([...r.actions].map((c) => ({ letter: c })), `solver · ${r.actions.length} moves`, 'solver');
    } catch (e) { showMessage(e.message); }
  }

  async function loadReplayFile(file) {
    let obj;
    try {
      const text = await file.text();
      if (text.length > 60000) throw new Error('the replay file is larger than 60000 characters');
      obj = JSON.parse(text);
    } catch (e) { showMessage('Cannot read ' + file.name + ': ' + e.message); return; }
    try {
      const r = await api('/api/replay', obj);
      if (!setLevel(r.replay.level, 'replay ' + file.name, r.sha256)) return;
      startWatch([...r.replay.actions].map((c) => ({ letter: c })),
        `replay by ${r.replay.player} · ${r.replay.actions.length} moves · ${r.solved ? 'solves' : 'does not solve'}`, r.replay.player);
    } catch (e) { showMessage('Replay ' + file.name + ': ' + e.message); }
  }

  function saveWatch() {
    const w = st.watch;
    if (!w) return;
    download({ level: st.level.xsb, actions: w.steps.map((s) => s.letter || '').join(''), player: w.player });
  }

  // ------------------------------------------------------------ modes and setup
  function setMode(mode) {
    if (mode === 'play') stopWatch();
    st.mode = mode;
    $('tab-play').classList.toggle('active', mode === 'play');
    $('tab-watch').classList.toggle('active', mode === 'watch');
    $('tab-play').setAttribute('aria-selected', mode === 'play');
    $('tab-watch').setAttribute('aria-selected', mode === 'watch');
    $('play-panel').hidden = mode !== 'play';
    $('watch-panel').hidden = mode !== 'watch';
    if (mode === 'play') renderPlay(); else renderWatch();
  }

  async function init() {
    $('tab-play').onclick = () => setMode('play');
    $('tab-watch').onclick = () => setMode('watch');
    $('load-level').onclick = loadBoxoban;
    $('random-level').onclick = () => loadRandom($('split').value);
    $('generate-level').onclick = () => loadRandom('generated:' + $('gen-style').value);
    $('paste-load').onclick = loadPasted;
    $('undo').onclick = undo;
    $('restart').onclick = restart;
    $('save-replay').onclick = saveReplay;
    $('replay-file').onchange = (e) => { const f = e.target.files[0]; if (f) loadReplayFile(f); e.target.value = ''; };
    $('run-agent').onclick = runAgent;
    $('run-solver').onclick = runSolver;
    $('w-play').onclick = togglePlay;
    $('w-step').onclick = () => { stopWatch(); stepWatch(1); };
    $('w-back').onclick = () => { stopWatch(); stepWatch(-1); };
    $('w-first').onclick = () => { stopWatch(); if (st.watch) { st.watch.t = 0; st.watch.game = new S.Game(st.level.parsed); renderWatch(); } };
    $('save-watch').onclick = saveWatch;
    $('speed').oninput = () => { $('speed-label').textContent = $('speed').value; };
    document.addEventListener('keydown', onKey);
    // Buttons keep focus after a click; let the arrow keys still reach the board.
    document.querySelectorAll('button').forEach((b) => b.addEventListener('mouseup', () => b.blur()));

    let info = { splits: [], watch: false, solver: false, generator: [] };
    try { info = await api('/api/info'); } catch (e) { showMessage(e.message); }
    for (const s of info.splits) {
      const o = document.createElement('option');
      o.value = s.name; o.textContent = `${s.name} (${s.files} files)`;
      $('split').appendChild(o);
    }
    if (info.splits.some((s) => s.name === 'unfiltered/valid')) $('split').value = 'unfiltered/valid';
    $('load-level').disabled = $('random-level').disabled = info.splits.length === 0;
    if (info.generator.length) {
      $('generated-card').hidden = false;
      for (const g of info.generator) { const o = document.createElement('option'); o.value = o.textContent = g; $('gen-style').appendChild(o); }
    }
    $('run-solver').disabled = !info.solver;
    if (!info.solver) $('run-solver').title = 'This build has no solver';
    if (info.watch) {
      try {
        const c = await api('/api/checkpoints');
        for (const name of c.checkpoints) { const o = document.createElement('option'); o.value = o.textContent = name; $('checkpoint').appendChild(o); }
      } catch (e) { showMessage(e.message); }
    }
    if (!$('checkpoint').options.length) {
      const o = document.createElement('option'); o.value = ''; o.textContent = info.watch ? 'no checkpoints under runs/ or records/' : 'this build cannot load checkpoints';
      $('checkpoint').appendChild(o);
      $('run-agent').disabled = true;
    }
    // ?level=unfiltered/valid/000.txt%233 opens that level (a link to share).
    const params = new URLSearchParams(location.search);
    const wanted = /^(.*)\/(\d{3})\.txt#(\d+)$/.exec(params.get('level') || '');
    if (wanted && info.splits.some((s) => s.name === wanted[1])) {
      $('split').value = wanted[1]; $('file').value = +wanted[2]; $('index').value = +wanted[3];
    }
    if (info.splits.length && !params.has('sample')) await loadBoxoban();
    else setLevel(SAMPLE, 'sample level', '');
    document.body.dataset.ready = 'true';
  }

  init();
})();
