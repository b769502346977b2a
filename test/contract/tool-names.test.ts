/**
 * The MCP tools are the 75 the service promises, by name: a new job goes into an existing tool (an action, a
 * parameter) or a REST-only operation, so an agent's tool list and the documented set stay one.
 */
import t from 'tap';
import { TOOLS } from '../../daemon/main.js';

const PROMISED = `allow_confirm api_call api_map captcha_act captcha_frames captcha_inspect capture click close_tab contexts
convert crawl crawl_status download_get download_link downloads drag evaluate explore extract extract_ai fill fill_form
fill_otp fill_secret fill_totp find_text focus_tab handoff handoff_extend handoff_resolve handoff_wait handoffs har
history hover log login map monitor navigate network open pdf press query read read_text recall record record_script
remember replay replay_wait route screenshot scroll search select_options session_delete session_list session_load
session_save sessions similar snapshot status tabs type upload vault_list viewer viewport wait workspaces`
  .split(/\s+/)
  .map((n) => `browser_${n}`);

t.test('the tool list is exactly the promised 75 names', async (t) => {
  t.equal(PROMISED.length, 75);
  t.same([...TOOLS.names()].sort(), [...PROMISED].sort());
});
