// The Sokoban rules for the page: a copy of dev.speedrun.sokoban.Game (and Formats.parseXsb).
// SokobanRulesTest runs this file under node and checks it against the Java engine on the same
// moves. Cells are flags as in Level: WALL=1 GOAL=2 BOX=4 PLAYER=8, index row*width+col.
(function (root) {
  'use strict';
  const WALL = 1, GOAL = 2, BOX = 4, PLAYER = 8;
  const DIRS = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };
  // Environment action ids (0 noop, 1 down, 2 up, 3 left, 4 right) to letters.
  const ACTION_LETTERS = ['', 'D', 'U', 'L', 'R'];

  /** Parses XSB text (rows separated by newlines; short rows padded with floor). Throws Error on bad input. */
  function parseXsb(text) {
    const rows = String(text).split(/\r?\n/);
    while (rows.length && rows[rows.length - 1].trim() === '') rows.pop();
    while (rows.length && rows[0].trim() === '') rows.shift();
    if (!rows.length) throw new Error('empty board');
    const height = rows.length;
    let width = 0;
    for (const r of rows) width = Math.max(width, r.length);
    if (width > 32 || height > 32) throw new Error('board is ' + width + 'x' + height + ', larger than 32x32');
    const cells = new Uint8Array(width * height);
    let players = 0, boxes = 0, goals = 0, player = -1;
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        const ch = c < rows[r].length ? rows[r][c] : ' ';
        let f;
        switch (ch) {
          case '#': f = WALL; break;
          case ' ': case '-': case '_': f = 0; break;
          case '@': f = PLAYER; break;
          case '+': f = PLAYER | GOAL; break;
          case '$': f = BOX; break;
          case '*': f = BOX | GOAL; break;
          case '.': f = GOAL; break;
          default: throw new Error('line ' + (r + 1) + ' column ' + (c + 1) + ": unknown character '" + ch + "'");
        }
        if (f & PLAYER) { players++; player = r * width + c; }
        if (f & BOX) boxes++;
        if (f & GOAL) goals++;
        cells[r * width + c] = f;
      }
    }
    if (players !== 1) throw new Error(players === 0 ? 'board has no player' : 'board has ' + players + ' players');
    if (boxes === 0) throw new Error('board has no boxes');
    if (boxes !== goals) throw new Error('board has ' + boxes + ' boxes but ' + goals + ' goals');
    return { width, height, cells, player };
  }

  function xsbChar(f) {
    if (f & WALL) return '#';
    const goal = (f & GOAL) !== 0;
    if (f & PLAYER) return goal ? '+' : '@';
    if (f & BOX) return goal ? '*' : '$';
    return goal ? '.' : ' ';
  }

  /** A position being played; the same rules as Game.move: pushes into floor or goal, no pulls. */
  class Game {
    constructor(level) {
      this.width = level.width;
      this.height = level.height;
      this.cells = Uint8Array.from(level.cells);
      this.player = level.player;
      this.moves = 0;
      this.pushes = 0;
    }

    /** Applies one move ('U','D','L','R'); returns 'blocked', 'walked' or 'pushed'. */
    move(letter) {
      const d = DIRS[letter];
      if (!d) throw new Error('not a move: ' + letter);
      const w = this.width, h = this.height;
      const r = Math.floor(this.player / w) + d[0], c = (this.player % w) + d[1];
      if (r < 0 || c < 0 || r >= h || c >= w) return 'blocked';
      const next = r * w + c;
      const n = this.cells[next];
      if (n & WALL) return 'blocked';
      if (n & BOX) {
        const r2 = r + d[0], c2 = c + d[1];
        if (r2 < 0 || c2 < 0 || r2 >= h || c2 >= w) return 'blocked';
        const beyond = r2 * w + c2;
        if (this.cells[beyond] & (WALL | BOX)) return 'blocked';
        this.cells[next] &= ~BOX;
        this.cells[beyond] |= BOX;
        this.pushes++;
        this.moveTo(next);
        return 'pushed';
      }
      this.moveTo(next);
      return 'walked';
    }

    moveTo(next) {
      this.cells[this.player] &= ~PLAYER;
      this.cells[next] |= PLAYER;
      this.player = next;
      this.moves++;
    }

    /** Plays every U/D/L/R letter (other characters ignored). */
    play(moves) {
      for (const ch of moves) if (DIRS[ch]) this.move(ch);
      return this;
    }

    isSolved() {
      for (const f of this.cells) if ((f & BOX) && !(f & GOAL)) return false;
      return true;
    }

    boxCount() { let n = 0; for (const f of this.cells) if (f & BOX) n++; return n; }
    boxesOnGoals() { let n = 0; for (const f of this.cells) if ((f & (BOX | GOAL)) === (BOX | GOAL)) n++; return n; }

    snapshot() { return { cells: Uint8Array.from(this.cells), player: this.player, moves: this.moves, pushes: this.pushes }; }
    restore(s) { this.cells = Uint8Array.from(s.cells); this.player = s.player; this.moves = s.moves; this.pushes = s.pushes; }

    toXsb() {
      const out = [];
      for (let r = 0; r < this.height; r++) {
        let row = '';
        for (let c = 0; c < this.width; c++) row += xsbChar(this.cells[r * this.width + c]);
        out.push(row);
      }
      return out.join('\n');
    }
  }

  /** Cells reachable from the player without crossing walls (the inside of the level). */
  function inside(level) {
    const w = level.width, h = level.height, seen = new Uint8Array(w * h);
    const stack = [level.player];
    seen[level.player] = 1;
    while (stack.length) {
      const i = stack.pop(), r = Math.floor(i / w), c = i % w;
      for (const [dr, dc] of Object.values(DIRS)) {
        const r2 = r + dr, c2 = c + dc;
        if (r2 < 0 || c2 < 0 || r2 >= h || c2 >= w) continue;
        const j = r2 * w + c2;
        if (!seen[j] && !(level.cells[j] & WALL)) { seen[j] = 1; stack.push(j); }
      }
    }
    return seen;
  }

  const api = { WALL, GOAL, BOX, PLAYER, ACTION_LETTERS, parseXsb, Game, inside };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.Sokoban = api;
})(typeof self !== 'undefined' ? self : this);
