/**
 * The one classifier of sensitive actions (payments, transfers, trades, security settings, sending, deleting,
 * accepting terms, running JavaScript). Everything it knows is in the rule table (sensitive-rules.ts); this
 * file only decides which rules apply to which action and element.
 *
 * The principle that keeps it from crying wolf: page text is content, not a command. Only the element's own
 * role and its short label count ("Delete" on a button, not "Delete" in a paragraph or in a link to a blog post
 * "How to delete files"). Page headings and the page URL are context: they count only when the action submits
 * something (a button click, Enter in a form, a form submit).
 */
import {
  GENERIC_CONFIRM,
  QUESTION,
  SENSITIVE_CLASSES,
  SENSITIVE_RULES,
  fold,
  type ContextRule,
  type DestinationRule,
  type FieldRule,
  type LabelRule,
  type SensitiveAction,
  type SensitiveClass,
} from './sensitive-rules.js';

export { SENSITIVE_CLASSES, SENSITIVE_RULES, type SensitiveClass, type SensitiveAction } from './sensitive-rules.js';

export interface FormField {
  name: string;
  type: string;
  autocomplete: string;
  label: string;
}

export interface SensitiveElement {
  tag: string;
  role: string;
  /** Accessible name. */
  name: string;
  text: string;
  type?: string;
  href?: string;
  formAction?: string;
  formMethod?: string;
  /** Fields of the form the element belongs to (empty when it is in no form). */
  formFields: FormField[];
  headings: string[];
  isEditable: boolean;
  /** For `fill`: the field's own autocomplete and name attribute, when the caller knows them. */
  autocomplete?: string;
  fieldName?: string;
}

export interface SensitiveInput {
  action: SensitiveAction;
  element?: SensitiveElement;
  pageUrl?: string;
  pageTitle?: string;
  headings?: string[];
}

export interface SensitiveVerdict {
  sensitive: boolean;
  /** In the fixed order of SENSITIVE_CLASSES, each once. */
  classes: SensitiveClass[];
  /** One line per rule that fired, written for the person who approves or reads the audit log. */
  reasons: string[];
}

/** Labels longer than this are content (an article title, a card), not a control's label. */
export const MAX_LABEL_CHARS = 60;
const DEFAULT_MAX_WORDS = 6;

const BUTTON_ROLES = new Set(['button', 'menuitem', 'menuitemcheckbox', 'menuitemradio']);
const BUTTON_INPUT_TYPES = new Set(['submit', 'button', 'image']);
const TOGGLE_ROLES = new Set(['checkbox', 'switch']);

const lower = (s: string | undefined) => (s ?? '').toLowerCase();

function isButton(el: SensitiveElement): boolean {
  const tag = lower(el.tag);
  return BUTTON_ROLES.has(lower(el.role)) || tag === 'button' || (tag === 'input' && BUTTON_INPUT_TYPES.has(lower(el.type)));
}

function isLink(el: SensitiveElement): boolean {
  return lower(el.role) === 'link' || (lower(el.tag) === 'a' && !!el.href);
}

function isToggle(el: SensitiveElement): boolean {
  return TOGGLE_ROLES.has(lower(el.role)) || (lower(el.tag) === 'input' && lower(el.type) === 'checkbox');
}

/** The element's short labels, folded; anything long or phrased as a question is content and dropped. */
function shortLabels(el: SensitiveElement): string[] {
  const out = new Set<string>();
  for (const raw of [el.name, el.text]) {
    if (!raw) continue;
    const text = fold(raw);
    if (!text || text.length > MAX_LABEL_CHARS || QUESTION.test(text)) continue;
    // Icons and arrows around a label ("🗑 Delete", "Pay now →") are not part of the words.
    const trimmed = text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}\p{Sc})]+$/gu, '');
    if (trimmed) out.add(trimmed);
  }
  return [...out];
}

const wordCount = (s: string) => s.split(' ').filter(Boolean).length;

/** "card_number", "cardNumber", "card-number" -> "card number", so field names read like labels. */
function fieldWords(name: string): string {
  return fold(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_\-.[\]]+/g, ' '));
}

function fieldMatches(rule: FieldRule, f: FormField): string | undefined {
  if (rule.types && !rule.types.includes(lower(f.type))) return undefined;
  const tokens = lower(f.autocomplete).split(/\s+/);
  const token = rule.autocomplete?.find((a) => tokens.includes(a));
  if (token) return `autocomplete ${token}`;
  if (rule.pattern) {
    for (const text of [fieldWords(f.name), fold(f.label)]) {
      if (text && text.length <= 80 && rule.pattern.test(text)) return `"${text}"`;
    }
  }
  return undefined;
}

/** Search boxes sit in forms everywhere, checkout pages included; Enter in them submits nothing sensitive. */
function isSearchOnlyForm(fields: FormField[]): boolean {
  return fields.length > 0 && fields.every((f) => lower(f.type) === 'search' || /^(?:q|query|search|s|keywords?|suche)$/.test(lower(f.name)) || lower(f.type) === 'hidden' || lower(f.type) === 'submit');
}

/**
 * A sign-up form asks for a new password too. It changes a security setting only when it also asks for the
 * current one, or when it has no e-mail/username field (a password reset form).
 */
function isPasswordChange(fields: FormField[]): boolean {
  const ac = (f: FormField) => lower(f.autocomplete).split(/\s+/);
  if (fields.some((f) => ac(f).includes('current-password'))) return true;
  return !fields.some((f) => ac(f).includes('email') || ac(f).includes('username') || lower(f.type) === 'email');
}

/** pathname + search of a URL, folded; undefined for URLs without a path worth reading. */
function pathOf(url: string | undefined, base?: string): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return fold(decodeURIComponent(u.pathname) + u.search);
  } catch {
    return undefined;
  }
}

const LABEL_RULES = SENSITIVE_RULES.filter((r): r is LabelRule => r.source === 'label');
const FIELD_RULES = SENSITIVE_RULES.filter((r): r is FieldRule => r.source === 'field');
const DESTINATION_RULES = SENSITIVE_RULES.filter((r): r is DestinationRule => r.source === 'destination');
const CONTEXT_RULES = SENSITIVE_RULES.filter((r): r is ContextRule => r.source === 'context');

/** Classifies one action. Pure: same input, same verdict. */
export function classifySensitive(input: SensitiveInput): SensitiveVerdict {
  const found = new Map<SensitiveClass, string[]>();
  const add = (cls: SensitiveClass, reason: string) => {
    const list = found.get(cls) ?? [];
    if (!list.includes(reason)) list.push(reason);
    found.set(cls, list);
  };

  for (const rule of SENSITIVE_RULES) {
    if (rule.source === 'tool' && rule.actions.includes(input.action)) add(rule.class, `${input.action} runs JavaScript in the page (${rule.id})`);
  }

  const el = input.element;
  if (el) {
    const button = isButton(el);
    const link = isLink(el);
    const toggle = isToggle(el);
    const labels = shortLabels(el);
    const headings = [...(input.headings ?? []), ...el.headings, ...(input.pageTitle ? [input.pageTitle] : [])]
      .map(fold)
      .filter((h) => h && wordCount(h) <= 10 && !QUESTION.test(h));
    const inForm = (el.formFields.length > 0 || !!el.formAction) && !isSearchOnlyForm(el.formFields);
    // Actions that carry out what the element or its form stands for.
    const activates = input.action === 'click' || input.action === 'press_enter' || input.action === 'submit' || input.action === 'drag';
    // Actions that submit: a form submit, Enter in a form or on a button, a click on a button.
    const submits = input.action === 'submit' || (input.action === 'press_enter' && (inForm || button)) || (input.action === 'click' && button);

    // 1. The control's own label.
    if (activates && (button || link || toggle)) {
      for (const rule of LABEL_RULES) {
        if (link && !button && !rule.links) continue;
        if (toggle && !button && !rule.toggles) continue;
        for (const l of labels) {
          if (wordCount(l) > (rule.maxWords ?? DEFAULT_MAX_WORDS)) continue;
          if (!rule.pattern.test(l) || rule.unless?.test(l)) continue;
          if (rule.needsContext && !headings.some((h) => rule.needsContext!.test(h))) continue;
          add(rule.class, `${button ? 'button' : link ? 'link' : 'control'} "${l}" (${rule.id})`);
        }
      }
    }

    // 2. Where it goes: a link's target, the form's action.
    const targets: ['href' | 'formAction', string | undefined][] = [];
    if (link && activates) targets.push(['href', pathOf(el.href, input.pageUrl)]);
    if (submits && el.formAction) targets.push(['formAction', pathOf(el.formAction, input.pageUrl)]);
    for (const [kind, path] of targets) {
      if (!path) continue;
      for (const rule of DESTINATION_RULES) {
        if (rule.on.includes(kind) && rule.pattern.test(path)) add(rule.class, `${kind === 'href' ? 'link to' : 'form sends to'} ${path} (${rule.id})`);
      }
    }

    // 3. What the form holds (for a submit) or what the field is (for fill).
    if (submits && inForm) {
      for (const rule of FIELD_RULES) {
        for (const f of el.formFields) {
          const why = fieldMatches(rule, f);
          if (!why) continue;
          if (rule.class === 'security_settings' && !isPasswordChange(el.formFields)) continue;
          add(rule.class, `form field ${f.name || f.label || f.type} ${why} (${rule.id})`);
          break;
        }
      }
    }
    if (input.action === 'fill') {
      const self: FormField = el.formFields.find((f) => (el.fieldName && f.name === el.fieldName) || (!el.fieldName && el.name && f.label === el.name)) ?? {
        name: el.fieldName ?? '',
        type: el.type ?? '',
        autocomplete: el.autocomplete ?? '',
        label: el.name,
      };
      if (el.autocomplete && !self.autocomplete) self.autocomplete = el.autocomplete;
      for (const rule of FIELD_RULES) {
        // Filling a message box or ticking a box is not yet sending or agreeing; typing a card number or a
        // new password is handing over the secret itself.
        if (rule.class !== 'payment' && rule.class !== 'security_settings' && rule.class !== 'transfer') continue;
        const why = fieldMatches(rule, self);
        if (why) add(rule.class, `fills ${self.name || self.label || 'a field'} ${why} (${rule.id})`);
      }
    }

    // 4. Page context: headings, title and the page URL, only for something that submits, and only from
    // inside a form or through a generic "Continue"/"Weiter": a "Search" button outside any form on a page
    // about payments pays nothing.
    const contextCounts = submits && (inForm || input.action === 'submit' || labels.some((l) => GENERIC_CONFIRM.test(l)));
    if (contextCounts) {
      for (const rule of CONTEXT_RULES) {
        const h = headings.find((x) => rule.pattern.test(x));
        if (h) add(rule.class, `submits on a page headed "${h}" (${rule.id})`);
      }
      const page = pathOf(input.pageUrl);
      if (page) {
        for (const rule of DESTINATION_RULES) {
          if (rule.on.includes('page') && rule.pattern.test(page)) add(rule.class, `submits on page ${page} (${rule.id})`);
        }
      }
    }

    // 5. Enter in a message composer sends it, form or not (chat boxes rarely have one).
    if (input.action === 'press_enter' && el.isEditable && !button) {
      const composer = FIELD_RULES.find((r) => r.id === 'send.field.any.message-body')!;
      const type = lower(el.tag) === 'textarea' ? 'textarea' : lower(el.tag) === 'input' ? lower(el.type) || 'text' : 'contenteditable';
      if (type === 'textarea' || type === 'contenteditable') {
        const why = fieldMatches(composer, { name: el.fieldName ?? '', type, autocomplete: '', label: el.name });
        if (why) add('send', `Enter in a message box ${why} (${composer.id})`);
      }
    }
  }

  const classes = SENSITIVE_CLASSES.filter((c) => found.has(c));
  return { sensitive: classes.length > 0, classes, reasons: classes.flatMap((c) => found.get(c)!.map((r) => `${c}: ${r}`)) };
}
