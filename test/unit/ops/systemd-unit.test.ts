/**
 * The shipped systemd unit: it parses (systemd-analyze verify) and scores 4.0 or lower on systemd's own exposure
 * scale, and it keeps the few settings Chromium cannot live without off. Skipped where systemd-analyze is absent.
 */
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const unitPath = new URL('../../../systemd/browserd.service', import.meta.url).pathname;
const unit = readFileSync(unitPath, 'utf8');
const has = spawnSync('systemd-analyze', ['--version']).status === 0;

t.test('settings the hardening needs, and none that would break V8 or the sandbox', async (t) => {
  const set = (k: string) => new RegExp(`^${k}=`, 'm').test(unit);
  for (const k of ['User', 'StateDirectory', 'ProtectSystem', 'ProtectHome', 'UMask', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules', 'ProtectKernelLogs', 'ProtectControlGroups', 'RestrictSUIDSGID', 'CapabilityBoundingSet', 'RestrictAddressFamilies', 'LockPersonality', 'MemoryMax', 'TasksMax']) {
    t.ok(set(k), `${k} is set`);
  }
  t.match(unit, /^User=browserd$/m, 'a user of its own, not root');
  t.match(unit, /^ProtectSystem=strict$/m);
  t.match(unit, /^CapabilityBoundingSet=$/m, 'no capability at all');
  t.match(unit, /^Environment=HOME=\/var\/lib\/browserd$/m, 'HOME inside the state directory');
  t.notOk(set('MemoryDenyWriteExecute'), 'V8 needs writable executable memory');
  t.notOk(set('RestrictNamespaces'), "Chromium's sandbox makes namespaces");
});

t.test('systemd-analyze verifies it and scores it 4.0 or lower', { skip: has ? false : 'systemd-analyze is not installed' }, async (t) => {
  // Checked as installed would be, with this machine's node in ExecStart (the path is the installer's choice).
  const dir = mkdtempSync(join(tmpdir(), 'browserd-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const copy = join(dir, 'browserd.service');
  writeFileSync(copy, unit.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
  const verify = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
  t.equal(verify.status, 0, verify.stderr);
  t.notMatch(verify.stderr, /Unknown (key|section)|Failed to parse|Invalid/i, 'no setting systemd does not know');
  const report = execFileSync('systemd-analyze', ['security', '--offline=true', copy], { encoding: 'utf8' });
  const score = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(report)?.[1]);
  t.ok(score <= 4.0, `exposure ${score} <= 4.0`);
});
