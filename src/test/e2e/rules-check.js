// Plays cases with the page's rules (src/main/resources/web/sokoban.js) for SokobanRulesJsTest.
// stdin: [{"level": "<XSB>", "actions": "UDLR..."}]; stdout: [{"outcomes": "BWP...", "xsb", "moves", "pushes", "solved"}]
// (B blocked, W walked, P pushed, one letter per action).
'use strict';
const path = require('path');
const S = require(path.join(__dirname, '..', '..', 'main', 'resources', 'web', 'sokoban.js'));

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((c) => {
    let level;
    try { level = S.parseXsb(c.level); } catch (e) { return { error: e.message }; }
    const g = new S.Game(level);
    let outcomes = '';
    for (const ch of c.actions) outcomes += g.move(ch)[0].toUpperCase();
    return { outcomes, xsb: g.toXsb(), moves: g.moves, pushes: g.pushes, solved: g.isSolved() };
  });
  process.stdout.write(JSON.stringify(out));
});
