/** The browser settings page: one form, every control labelled with the setting's own name. */
import type { Platform } from '../../platform.js';
import { SETTING_NAMES } from '../../settings/browser-settings.js';
import { ADMIN_ACTOR, auditedChange } from '../rest-call.js';
import { html, type Markup } from './html.js';
import { csrfField } from './layout.js';
import type { AdminSession } from './sessions.js';
import { DEVICE_MEMORY, formValues, patchFromForm } from './settings-form.js';

/** A labelled text or number input; the label text is the setting's name. */
function input(v: Record<string, string>, name: string, type = 'text', extra = ''): Markup {
  const id = name.replace(/\./g, '-');
  return html`<div class="row"><label for="${id}">${name}</label> <input type="${type}" id="${id}" name="${name}" value="${v[name] ?? ''}"${type === 'number' ? html` step="any"` : ''}> <span class="muted">${extra}</span></div>`;
}

function checkbox(v: Record<string, string>, name: string, extra: string): Markup {
  const id = name.replace(/\./g, '-');
  return html`<div class="row"><label for="${id}">${name}</label> <input type="checkbox" id="${id}" name="${name}"${v[name] ? html` checked` : ''}> <span class="muted">${extra}</span></div>`;
}

export function settingsBody(env: Platform, s: AdminSession): Markup {
  const v = formValues(env.browserSettings.current());
  const option = (name: string, value: string, label: string) => html`<option value="${value}"${v[name] === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="post" action="/admin/settings" id="settings">${csrfField(s)}
<fieldset><legend>Persistent identity</legend>
<div class="row"><label for="profile_enabled">profile_enabled</label> <select id="profile_enabled" name="profile_enabled">${option('profile_enabled', 'off', 'off')}${option('profile_enabled', 'all', 'every site')}${option('profile_enabled', 'sites', 'the sites listed below')}</select></div>
<div class="row"><label for="profile_enabled_sites">profile_enabled sites</label><br><textarea id="profile_enabled_sites" name="profile_enabled_sites" rows="3" placeholder="example.com&#10;*.example.org">${v.profile_enabled_sites}</textarea></div>
</fieldset>
<fieldset><legend>profile (empty: the drawn identity's value, or native)</legend>
${input(v, 'profile.hardwareConcurrency', 'text', 'CPU threads, 1-128')}
<div class="row"><label for="profile-deviceMemory">profile.deviceMemory</label> <select id="profile-deviceMemory" name="profile.deviceMemory"><option value="">(drawn)</option>${DEVICE_MEMORY.map((m) => option('profile.deviceMemory', m, `${m} GB`))}</select></div>
${input(v, 'profile.screen.width', 'text', 'pixels')}${input(v, 'profile.screen.height', 'text', 'pixels')}${input(v, 'profile.screen.colorDepth', 'text', '24, 30 or 32')}${input(v, 'profile.screen.devicePixelRatio', 'text', '1-4')}
${input(v, 'profile.webgl.vendor')}${input(v, 'profile.webgl.renderer')}${input(v, 'profile.platform', 'text', 'navigator.platform, e.g. Win32')}
<div class="row"><label for="profile-userAgentMetadata">profile.userAgentMetadata</label><br><textarea id="profile-userAgentMetadata" name="profile.userAgentMetadata" rows="3" placeholder='{"platform": "Windows", "platformVersion": "15.0.0"}'>${v['profile.userAgentMetadata']}</textarea></div>
${checkbox(v, 'profile.humanize', 'curved pointer moves and paced typing on documents with the identity')}
</fieldset>
<fieldset><legend>Ad and tracker blocking</legend>
<div class="row"><label for="block_ads">block_ads</label><br><textarea id="block_ads" name="block_ads" rows="3" placeholder="one host pattern a line; empty: off">${v.block_ads}</textarea></div>
</fieldset>
<fieldset><legend>Host</legend>
${input(v, 'max_browsers', 'text', `browsers at once on this host (started with --max-browsers ${env.cfg.maxBrowsers})`)}
${checkbox(v, 'signup', 'anyone may create a user on the home page')}
</fieldset>
<button type="submit" id="save-settings">Save settings</button></form>`;
}

/** The form as one patch through the one validation; a bad value changes nothing. */
export async function saveSettings(env: Platform, form: URLSearchParams) {
  // The form always sends every setting; the audit names them, never their values.
  return auditedChange(env, ADMIN_ACTOR, 'admin.browser_settings', { keys: [...SETTING_NAMES], from: 'console' }, async () => env.browserSettings.update(patchFromForm(form)));
}
