/**
 * The viewer page's own script, as text served inline (its hash is in the page's CSP, so nothing else can run
 * there). It draws frames on a canvas, keeps the tab strip and address bar, and sends pointer and key events
 * as fractions of the frame; the server decides whether they go anywhere. Page-controlled text (URLs) is only
 * ever set as textContent or an input value, never as HTML.
 */
export const VIEWER_SCRIPT = String.raw`(() => {
  const token = location.pathname.split('/')[2] || '';
  const $ = (id) => document.getElementById(id);
  const canvas = $('screen');
  const g = canvas.getContext('2d');
  const stage = $('stage');
  const strip = $('tabs');
  const addr = $('addr');
  const status = $('status');
  let mode = 'view';
  let latest = 0;
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/live/' + encodeURIComponent(token) + '/ws');
  const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
  const say = (text) => { status.textContent = text; };
  const interactive = () => mode === 'interactive';

  function fit() {
    if (!canvas.width || !canvas.height) return;
    const scale = Math.min(stage.clientWidth / canvas.width, stage.clientHeight / canvas.height);
    canvas.style.width = Math.floor(canvas.width * scale) + 'px';
    canvas.style.height = Math.floor(canvas.height * scale) + 'px';
  }
  addEventListener('resize', fit);

  function draw(m) {
    const seq = ++latest;
    const img = new Image();
    img.onload = () => {
      if (seq !== latest) return; // a newer frame is on its way: skip this one
      if (canvas.width !== img.naturalWidth || canvas.height !== img.naturalHeight) {
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        fit();
      }
      g.drawImage(img, 0, 0);
      document.dispatchEvent(new CustomEvent('live-frame'));
    };
    img.src = 'data:image/jpeg;base64,' + m.data;
  }

  function showTabs(m) {
    strip.replaceChildren();
    for (const t of m.tabs) {
      const b = document.createElement('button');
      b.className = 'tab' + (t.id === m.front ? ' front' : '');
      b.title = t.url;
      b.dataset.id = t.id;
      let label = t.url;
      try { const u = new URL(t.url); label = u.host ? u.host + u.pathname + u.search : t.url; } catch {}
      b.textContent = t.id + ' · ' + label.slice(0, 40);
      b.addEventListener('click', () => send({ type: 'tab', id: t.id }));
      strip.append(b);
      if (t.id === m.front && document.activeElement !== addr) addr.value = t.url;
    }
  }

  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.type === 'frame') draw(m);
    else if (m.type === 'tabs') showTabs(m);
    else if (m.type === 'hello') {
      mode = m.mode;
      document.body.dataset.mode = mode;
      for (const el of document.querySelectorAll('.act')) el.disabled = !interactive();
      say(interactive() ? 'Live. Click into the page to use it; Ctrl+V pastes text.' : 'Live, view only.');
    } else if (m.type === 'error') say(m.message + (m.next ? ' ' + m.next : ''));
  };
  ws.onclose = () => say('Disconnected. The link may have expired: ask for a new one.');

  const clamp = (v) => Math.min(1, Math.max(0, v));
  const pos = (e) => {
    const r = canvas.getBoundingClientRect();
    return { x: clamp((e.clientX - r.left) / r.width), y: clamp((e.clientY - r.top) / r.height) };
  };
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const button = (b) => ['left', 'middle', 'right'][b] || 'none';

  canvas.addEventListener('mousedown', (e) => {
    canvas.focus();
    if (!interactive()) return;
    e.preventDefault();
    send({ type: 'mouse', event: 'down', ...pos(e), button: button(e.button), clickCount: Math.min(3, e.detail || 1), modifiers: mods(e) });
  });
  canvas.addEventListener('mouseup', (e) => {
    if (!interactive()) return;
    send({ type: 'mouse', event: 'up', ...pos(e), button: button(e.button), clickCount: Math.min(3, e.detail || 1), modifiers: mods(e) });
  });
  let move = null;
  canvas.addEventListener('mousemove', (e) => {
    if (!interactive()) return;
    const first = !move;
    move = { type: 'mouse', event: 'move', ...pos(e), button: 'none', modifiers: mods(e) };
    if (first) requestAnimationFrame(() => { send(move); move = null; });
  });
  canvas.addEventListener('wheel', (e) => {
    if (!interactive()) return;
    e.preventDefault();
    send({ type: 'wheel', ...pos(e), deltaX: Math.round(e.deltaX), deltaY: Math.round(e.deltaY), modifiers: mods(e) });
  }, { passive: false });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  for (const kind of ['keydown', 'keyup']) {
    canvas.addEventListener(kind, (e) => {
      if (!interactive()) return;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return; // the paste event carries the text
      e.preventDefault();
      send({ type: 'key', event: kind === 'keydown' ? 'down' : 'up', key: e.key, code: e.code, keyCode: e.keyCode, modifiers: mods(e) });
    });
  }
  document.addEventListener('paste', (e) => {
    if (e.target === addr || !interactive()) return;
    const text = e.clipboardData && e.clipboardData.getData('text/plain');
    e.preventDefault();
    if (text) send({ type: 'paste', text: text.slice(0, 10000) });
  });
  $('back').addEventListener('click', () => send({ type: 'history', action: 'back' }));
  $('forward').addEventListener('click', () => send({ type: 'history', action: 'forward' }));
  $('reload').addEventListener('click', () => send({ type: 'history', action: 'reload' }));
  $('go').addEventListener('submit', (e) => {
    e.preventDefault();
    if (addr.value.trim()) send({ type: 'navigate', url: addr.value.trim() });
    canvas.focus();
  });
})();`;
