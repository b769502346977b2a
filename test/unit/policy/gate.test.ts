/**
 * The gate as a pure decision. The call pipeline skips asking the page what an element is wherever
 * elementMatters says the answer cannot change the decision; these cases hold that shortcut to the decision
 * itself, so a change to one without the other fails here rather than letting a sensitive action through.
 */
import t from 'tap';
import { BrowserdError } from '../../../protocol/errors.js';
import { elementMatters, gateAction, type GatedAction, type GatedActionKind, type GatedPage } from '../../../daemon/policy/gate.js';
import type { SensitiveElement } from '../../../daemon/policy/sensitive.js';
import type { HostRule } from '../../../daemon/policy/host-policy.js';

const URL_ = 'https://shop.example/checkout';
const payButton: SensitiveElement = {
  tag: 'button', role: 'button', name: 'Pay now', text: 'Pay now', type: 'submit', formAction: 'https://shop.example/charge', formMethod: 'post',
  formFields: [{ name: 'cardnumber', type: 'text', autocomplete: 'cc-number', label: 'Card number' }], headings: ['Checkout'], isEditable: false,
};
const cardField: SensitiveElement = { ...payButton, tag: 'input', role: 'textbox', name: 'Card number', text: '', type: 'text', isEditable: true, autocomplete: 'cc-number', fieldName: 'cardnumber' };
const link: SensitiveElement = { tag: 'a', role: 'link', name: 'Shipping info', text: 'Shipping info', href: 'https://shop.example/shipping', formFields: [], headings: ['Checkout'], isEditable: false };

const KINDS: GatedActionKind[] = ['click', 'press_enter', 'fill', 'submit', 'evaluate', 'drag', 'upload', 'allow_confirm'];
const RULES: Record<string, HostRule[]> = { none: [], readOnly: [{ pattern: 'shop.example', access: 'read_only' }], allowed: [{ pattern: 'shop.example', access: 'allowed' }] };

function decide(page: GatedPage, a: GatedAction): string {
  try {
    return gateAction(page, a) ? 'ask' : 'run';
  } catch (e) {
    return e instanceof BrowserdError ? e.code : 'threw';
  }
}

t.test('where elementMatters is false, no element changes the decision', async (t) => {
  let checked = 0;
  for (const tabMode of ['read', 'act'] as const) {
    for (const approvals of [false, true]) {
      for (const [ruleName, rules] of Object.entries(RULES)) {
        const page: GatedPage = { url: URL_, tabId: 't1', tabMode, rules, approvals };
        if (elementMatters(page)) continue;
        for (const action of KINDS) {
          const blind = decide(page, { action });
          for (const element of [payButton, cardField, link]) {
            t.equal(decide(page, { action, element, target: 'e1' }), blind, `${tabMode} tab, approvals ${approvals}, ${ruleName}: ${action} on ${element.name}`);
            checked++;
          }
        }
      }
    }
  }
  t.ok(checked > 0, 'some page settings let the element lookup be skipped');
});

t.test('where it matters, it does: the same element is decided differently than no element', async (t) => {
  const readOnly: GatedPage = { url: URL_, tabId: 't1', tabMode: 'act', rules: RULES.readOnly, approvals: false };
  t.ok(elementMatters(readOnly));
  t.equal(decide(readOnly, { action: 'fill', element: cardField }), 'site_read_only', 'a card number on a read-only site');
  t.equal(decide(readOnly, { action: 'fill', element: link }), 'run', 'a harmless field on a read-only site');
  const readTab: GatedPage = { url: URL_, tabId: 't1', tabMode: 'read', rules: [], approvals: false };
  t.ok(elementMatters(readTab));
  t.equal(decide(readTab, { action: 'click', element: payButton }), 'refused');
  const approvals: GatedPage = { url: URL_, tabId: 't1', tabMode: 'act', rules: [], approvals: true };
  t.ok(elementMatters(approvals));
  t.equal(decide(approvals, { action: 'click', element: payButton }), 'ask');
  t.equal(decide(approvals, { action: 'click', element: link }), 'run');
});

t.test('a click or drop at a bare point is refused on a read-only site only', async (t) => {
  const readOnly: GatedPage = { url: URL_, tabId: 't1', tabMode: 'act', rules: RULES.readOnly, approvals: false };
  t.equal(decide(readOnly, { action: 'click', atPoint: true, target: '(10, 10)' }), 'site_read_only');
  t.equal(decide(readOnly, { action: 'drag', atPoint: true }), 'site_read_only');
  t.equal(decide({ ...readOnly, rules: [] }, { action: 'click', atPoint: true }), 'run');
});

t.test('a blocked site refuses everything, element or not', async (t) => {
  const blocked: GatedPage = { url: URL_, tabId: 't1', tabMode: 'act', rules: [{ pattern: 'shop.example', access: 'blocked' }], approvals: false };
  for (const action of KINDS) t.equal(decide(blocked, { action }), 'blocked', action);
});
