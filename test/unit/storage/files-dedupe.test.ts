/**
 * The file store's additions: one copy of the same bytes (by sha-256, whatever the name), a taken name gets
 * -2, -3 within the FILE_NAME rule, a page's suggested name is made safe with its extension kept, a staged
 * file is moved (not copied: same inode) and the hash follows a file replaced under its name. Share-link
 * tokens: made and read back, refused when altered in any one character or signed by another key.
 */
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILE_NAME, FileStore, mimeOf, numberedName, safeFileName } from '../../../storage/files.js';
import { ShareLinks } from '../../../storage/share-links.js';

const dir = mkdtempSync(join(tmpdir(), 'browserd-files-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
const files = new FileStore(dir);
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let staged = 0;
function stage(user: string, data: string | Buffer): string {
  const p = join(files.stagingDir(user, 'default'), `00000000-0000-0000-0000-${String(++staged).padStart(12, '0')}`);
  writeFileSync(p, data);
  return p;
}

t.test('suggested names are made safe, keep their extension and pass the store rule', async (t) => {
  const cases: [string, string][] = [
    ['Report Q3.pdf', 'Report Q3.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['..\\win\\evil.exe', 'evil.exe'],
    ['.bashrc', 'bashrc'],
    ['Résumé (final).docx', 'Resume _final_.docx'],
    ['a"b<c>d|e.csv', 'a_b_c_d_e.csv'],
    ['报告.xlsx', 'download.xlsx'],
    ['', 'download'],
    ['...', 'download'],
    ['name.with..dots.txt', 'name.with.dots.txt'],
    ['x'.repeat(300) + '.pdf', 'x'.repeat(196) + '.pdf'],
  ];
  for (const [raw, want] of cases) {
    const got = safeFileName(raw);
    t.equal(got, want, `${JSON.stringify(raw.slice(0, 40))} -> ${want}`);
    t.ok(FILE_NAME.test(got) && files.validName(got), `${got} passes the store's rule`);
  }
  t.equal(numberedName('report.pdf', 2), 'report-2.pdf');
  t.equal(numberedName('README', 3), 'README-3');
  const long = numberedName('y'.repeat(196) + '.pdf', 12);
  t.ok(FILE_NAME.test(long) && long.endsWith('-12.pdf') && long.length <= 200, 'a numbered long name stays within the rule');
});

t.test('MIME types from the extension, office and media included', async (t) => {
  t.equal(mimeOf('a.docx'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  t.equal(mimeOf('a.XLSX'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  t.equal(mimeOf('a.pptx'), 'application/vnd.openxmlformats-officedocument.presentationml.presentation');
  t.equal(mimeOf('a.tsv'), 'text/tab-separated-values');
  t.equal(mimeOf('a.rss'), 'application/rss+xml');
  t.equal(mimeOf('a.epub'), 'application/epub+zip');
  t.equal(mimeOf('a.mp4'), 'video/mp4');
  t.equal(mimeOf('a.svg'), 'image/svg+xml');
  t.equal(mimeOf('a.unknown'), 'application/octet-stream');
});

t.test('a staged file moves in; the same bytes again stay one file; other bytes under the name get -2', async (t) => {
  const u = 'alice';
  const p1 = stage(u, 'first body');
  const ino = statSync(p1).ino;
  const a = await files.addFile(u, 'Report Q3.pdf', p1);
  t.match(a, { name: 'Report Q3.pdf', size: 10, mimeType: 'application/pdf', existing: false, sha256: sha('first body') });
  t.equal(statSync(join(files.dir(u), 'Report Q3.pdf')).ino, ino, 'moved, not copied');
  t.equal(statSync(join(files.dir(u), 'Report Q3.pdf')).mode & 0o777, 0o600);
  t.notOk(existsSync(p1), 'nothing left in staging');

  const again = await files.addFile(u, 'Report Q3.pdf', stage(u, 'first body'));
  t.match(again, { name: 'Report Q3.pdf', existing: true });
  const renamed = await files.addFile(u, 'other name.pdf', stage(u, 'first body'));
  t.match(renamed, { name: 'Report Q3.pdf', existing: true }, 'same bytes under another name: the stored name answers');

  const b = await files.addFile(u, 'Report Q3.pdf', stage(u, 'second body'));
  t.match(b, { name: 'Report Q3-2.pdf', existing: false });
  const c = await files.addBytes(u, 'Report Q3.pdf', Buffer.from('third body!'));
  t.match(c, { name: 'Report Q3-3.pdf', existing: false, sha256: sha('third body!') });
  const c2 = await files.addBytes(u, 'whatever.pdf', Buffer.from('third body!'));
  t.match(c2, { name: 'Report Q3-3.pdf', existing: true });

  t.same(files.list(u).map((f) => f.name).sort(), ['Report Q3-2.pdf', 'Report Q3-3.pdf', 'Report Q3.pdf']);
  t.same(readdirSync(files.stagingDir(u, 'default')), [], 'staging is empty');
  t.equal(readFileSync(join(files.dir(u), 'Report Q3-2.pdf'), 'utf8'), 'second body');
});

t.test('additions at the same time never take one name twice', async (t) => {
  const u = 'bob';
  const bodies = Array.from({ length: 8 }, (_, i) => `body number ${i}`);
  const added = await Promise.all(bodies.map((b, i) => (i % 2 ? files.addBytes(u, 'same.csv', Buffer.from(b)) : files.addFile(u, 'same.csv', stage(u, b)))));
  t.equal(new Set(added.map((a) => a.name)).size, 8, 'eight names');
  for (const a of added) t.equal(sha(readFileSync(join(files.dir(u), a.name))), a.sha256, `${a.name} holds its own bytes`);
  const dup = await Promise.all([files.addBytes(u, 'dup.txt', Buffer.from('dup')), files.addBytes(u, 'dup.txt', Buffer.from('dup'))]);
  t.same(dup.map((d) => d.existing).sort(), [false, true], 'the same bytes twice at once: one stored, one found');
});

t.test('the hash follows the file: replaced under the same name, the new bytes are hashed', async (t) => {
  const u = 'carol';
  const a = await files.addBytes(u, 'notes.txt', Buffer.from('version one'));
  t.equal(await files.sha256(u, 'notes.txt'), a.sha256);
  files.write(u, 'notes.txt', Buffer.from('version two'));
  t.equal(await files.sha256(u, 'notes.txt'), sha('version two'));
  t.notOk(await files.openIfHash(u, 'notes.txt', a.sha256), 'the old hash no longer opens it');
  const opened = await files.openIfHash(u, 'notes.txt', sha('version two'));
  t.ok(opened);
  const chunks: Buffer[] = [];
  for await (const c of opened!.stream) chunks.push(c as Buffer);
  t.equal(Buffer.concat(chunks).toString(), 'version two');
  t.equal(await files.sha256(u, 'missing.txt'), undefined);
  t.equal(await files.sha256(u, '../alice/Report Q3.pdf'), undefined, 'no way out of the user dir');
});

t.test('share-link tokens: read back as made, refused altered in any character or under another key', async (t) => {
  const links = new ShareLinks(dir);
  const p = { u: 'alice', f: 'Report Q3.pdf', h: sha('first body'), e: 2_000_000_000 };
  const token = links.make(p);
  t.same(links.verify(token), p);
  t.equal(statSync(join(dir, 'share-link.key')).mode & 0o777, 0o600, 'the key file is private');
  t.same(new ShareLinks(dir).verify(token), p, 'the key is kept: a new instance (a restart) reads the same one');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
  let refused = 0;
  for (let i = 0; i < token.length; i++) {
    for (const c of [alphabet[(alphabet.indexOf(token[i]!) + 1) % alphabet.length]!, alphabet[(alphabet.indexOf(token[i]!) + 7) % alphabet.length]!]) {
      const altered = token.slice(0, i) + c + token.slice(i + 1);
      if (links.verify(altered) === undefined) refused++;
      else t.fail(`altered at ${i} (${token[i]} -> ${c}) still verifies`);
    }
  }
  t.equal(refused, token.length * 2, 'every one-character change is refused');
  // Another user's name in the payload, signed with the real key's signature: refused.
  const [, sig] = token.split('.');
  const swapped = `${Buffer.from(JSON.stringify({ ...p, u: 'bob' })).toString('base64url')}.${sig}`;
  t.equal(links.verify(swapped), undefined);
  const other = mkdtempSync(join(tmpdir(), 'browserd-otherkey-'));
  t.teardown(() => rmSync(other, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  t.equal(new ShareLinks(other).verify(token), undefined, 'another key refuses it');
  t.equal(links.verify(`${token}.x`), undefined);
  t.equal(links.verify(''), undefined);
});
