// End-to-end test of the play page in Debian's headless Chromium, driven by playwright-core.
// Run by PlayPageE2ETest (which starts the server): node play.e2e.js CONFIG.json
// CONFIG: {url, split, file, index, address, solution, pushes, outDir, screenshots (folder or null),
//          checkpoint, llmBoard, llmSolution}
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const KEY = { U: 'ArrowUp', D: 'ArrowDown', L: 'ArrowLeft', R: 'ArrowRight' };
const WASD = { U: 'w', D: 's', L: 'a', R: 'd' };
let checks = 0;

function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
  checks++;
  console.log('ok ' + checks + ' - ' + what);
}

async function text(page, sel) { return (await page.textContent(sel)).trim(); }

// Pictures for the README go to cfg.screenshots; others (for looking at a failure) to cfg.outDir.
async function shot(page, name, forReadme = true) {
  const dir = forReadme && cfg.screenshots ? cfg.screenshots : cfg.outDir;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'speedrun-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: cfg.chromium || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 760 },
    acceptDownloads: true,
  });
  const errors = [];
  try {
    const page = context.pages()[0] || await context.newPage();
    page.on('pageerror', (e) => errors.push('page error: ' + e.message));
    page.on('console', (m) => {
      // A refused request shows in the console as a failed resource load: those are expected here.
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push('console: ' + m.text());
    });
    page.setDefaultTimeout(20000);

    // --- Load the page and a Boxoban level.
    await page.goto(cfg.url);
    await page.waitForSelector('body[data-ready=true]');
    check((await page.title()).includes('Sokoban'), 'the page loads');
    await page.selectOption('#split', cfg.split);
    await page.fill('#file', String(cfg.file));
    await page.fill('#index', String(cfg.index));
    await page.click('#load-level');
    await page.waitForFunction((a) => document.getElementById('level-name').textContent === a, cfg.address);
    check((await page.locator('#board rect.box').count()) > 0, 'level ' + cfg.address + ' is drawn with its boxes');

    // --- Play: one move and undo, then the known solution by key presses (arrows, then WASD).
    const first = cfg.solution[0];
    await page.keyboard.press(KEY[first]);
    check(await text(page, '#moves') === '1', 'a key press moves the player');
    await page.keyboard.press('z');
    check(await text(page, '#moves') === '0', 'Z undoes the move');
    const half = Math.floor(cfg.solution.length / 2);
    for (let i = 0; i < cfg.solution.length; i++) {
      const c = cfg.solution[i];
      if (i === cfg.solution.length - 1) {
        check((await page.getAttribute('#status', 'data-state')) !== 'solved', 'not solved before the last move');
      }
      await page.keyboard.press(i < half ? KEY[c] : WASD[c]);
    }
    await page.waitForSelector('#status[data-state=solved]');
    check((await text(page, '#status')).startsWith('Solved'), 'the known solution solves the level: ' + await text(page, '#status'));
    check(await page.isVisible('#banner'), 'the "Solved!" banner shows');
    check(await text(page, '#moves') === String(cfg.solution.length), 'move counter = ' + cfg.solution.length);
    check(await text(page, '#pushes') === String(cfg.pushes), 'push counter = ' + cfg.pushes + ' (the Java engine\'s count)');
    await page.keyboard.press('ArrowLeft');
    check(await text(page, '#moves') === String(cfg.solution.length), 'no moves after the solve');
    await page.waitForTimeout(500); // let the banner's entrance animation finish before the picture
    await shot(page, 'play-solved.png');

    // --- Save the replay (a download) and check its contents.
    await page.fill('#player-name', 'e2e tester');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-replay')]);
    const replayPath = path.join(cfg.outDir, 'replay.json');
    await download.saveAs(replayPath);
    const replay = JSON.parse(fs.readFileSync(replayPath, 'utf8'));
    check(fs.readFileSync(replayPath, 'utf8').trim().split('\n').length === 1, 'the replay file is one JSON line (a JSONL case)');
    check(JSON.stringify(Object.keys(replay)) === '["level","actions","player"]', 'replay file has level, actions, player');
    check(replay.actions === cfg.solution && replay.player === 'e2e tester', 'replay holds the moves and the player');

    // --- Watch the replay to the end.
    await page.click('#tab-play');
    await page.setInputFiles('#replay-file', replayPath);
    await page.waitForFunction(() => document.getElementById('w-n').textContent !== '0');
    check(await text(page, '#w-n') === String(cfg.solution.length), 'the replay loads in the watch view with all its moves');
    await page.$eval('#speed', (e) => { e.value = '30'; e.dispatchEvent(new Event('input')); });
    await page.click('#w-play');
    await page.waitForSelector('#status[data-state=finished-solved]');
    check(await text(page, '#w-t') === String(cfg.solution.length), 'the replay plays to its end and solves the level');
    await page.click('#w-back');
    check(await text(page, '#w-t') === String(cfg.solution.length - 1), 'step back');
    await page.click('#w-step');
    check(await text(page, '#w-t') === String(cfg.solution.length), 'step forward');

    // --- Watch the agent (the test's scripted policy) with its probabilities and values.
    await page.selectOption('#checkpoint', cfg.checkpoint);
    await page.click('#run-agent');
    await page.waitForSelector('#agent-view:not([hidden])');
    for (let i = 0; i < 8; i++) await page.click('#w-step');
    check(await page.locator('#probs .prob').count() === 5, 'five action probabilities beside the board');
    check(/^-?\d+\.\d{3}$/.test(await text(page, '#value')), 'a value estimate beside the board');
    await shot(page, 'watch-agent.png');
    await page.click('#w-play');
    await page.waitForSelector('#status[data-state=finished-solved]');
    check(true, 'the agent plays the level to a solve');

    // --- The solver's solution, played the same way.
    if (await page.isEnabled('#run-solver')) {
      await page.click('#run-solver');
      await page.waitForFunction(() => /^solver/.test(document.getElementById('watch-who').textContent));
      await page.click('#w-play');
      await page.waitForSelector('#status[data-state=finished-solved]');
      check(true, 'the solver\'s solution plays to a solve');
    }

    // --- Another level while watching: the old episode is cleared and the new board drawn.
    await page.fill('#index', '2');
    await page.click('#load-level');
    await page.waitForFunction(() => /#2$/.test(document.getElementById('level-name').textContent));
    check(await text(page, '#w-n') === '0' && (await page.getAttribute('#status', 'data-state')) === 'idle'
      && (await page.locator('#board rect.box').count()) === 4, 'a new level in the Watch view clears the episode and shows the board');

    // --- A generated level.
    await page.click('#tab-play');
    await page.selectOption('#gen-style', 'llm');
    await page.click('#generate-level');
    await page.waitForFunction(() => /^generated llm/.test(document.getElementById('level-name').textContent));
    check((await page.locator('#board rect.box').count()) === 2, 'a generated LLM-style level with 2 boxes');

    // --- A pasted board in the LLM legend.
    await page.click('#tab-play');
    await page.fill('#paste', cfg.llmBoard);
    await page.selectOption('#paste-format', 'llm');
    await page.click('#paste-load');
    await page.waitForFunction(() => document.getElementById('level-name').textContent === 'pasted board');
    for (const c of cfg.llmSolution) await page.keyboard.press(KEY[c]);
    await page.waitForSelector('#status[data-state=solved]');
    check(true, 'a pasted LLM-legend board plays and solves');

    // --- A link to a level opens it.
    await page.goto(cfg.url + '?level=' + encodeURIComponent('unfiltered/valid/000.txt#7'));
    await page.waitForSelector('body[data-ready=true]');
    check(await text(page, '#level-name') === 'unfiltered/valid/000.txt#7', 'a ?level= link opens that level');

    // --- Bad requests: a 4xx with its reason, shown on the page; the server keeps serving.
    const bad = await page.evaluate(async () => {
      const r = await fetch('/api/level?split=../../etc&file=0&index=0');
      return { status: r.status, body: await r.json() };
    });
    check(bad.status === 400 && /unknown split/.test(bad.body.error), 'a path-traversal level name gets 400: ' + bad.body.error);
    const badPath = path.join(cfg.outDir, 'bad-replay.json');
    fs.writeFileSync(badPath, JSON.stringify({ level: replay.level, actions: 'UDX', player: 'x' }));
    await page.setInputFiles('#replay-file', badPath);
    await page.waitForSelector('#message:not([hidden])');
    check(/expected U, D, L or R/.test(await text(page, '#message')), 'a malformed replay is refused with its reason: ' + await text(page, '#message'));
    await page.fill('#paste', '#####\n#@$?#\n#####');
    await page.selectOption('#paste-format', 'xsb');
    await page.click('#paste-load');
    await page.waitForFunction(() => /unknown character/.test(document.getElementById('message').textContent));
    check(true, 'a malformed pasted board is refused with its reason');
    await shot(page, 'bad-request.png', false);
    const ok = await page.evaluate(async () => (await fetch('/api/info')).status);
    check(ok === 200, 'the server still serves after bad requests');

    check(errors.length === 0, 'no script errors on the page' + (errors.length ? ': ' + errors.join('; ') : ''));
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log('e2e: all ' + checks + ' checks ok');
}

main().catch((e) => {
  console.error('e2e failed after ' + checks + ' checks: ' + (e && e.stack || e));
  process.exit(1);
});
