import t from 'tap';
import { classifySensitive, SENSITIVE_CLASSES, type FormField, type SensitiveElement, type SensitiveInput } from '../../../daemon/policy/sensitive.js';
import { RULE_LANGS, SENSITIVE_RULES, type SensitiveClass } from '../../../daemon/policy/sensitive-rules.js';

// Every rule id that fired in this file; the last test checks that no rule in the table went untested.
const fired = new Set<string>();
function classify(input: SensitiveInput) {
  const verdict = classifySensitive(input);
  for (const r of verdict.reasons) {
    const id = /\(([a-z_]+\.[a-z]+\.[a-z]+(?:\.[a-z-]+)?)\)$/.exec(r)?.[1];
    if (id) fired.add(id);
  }
  return verdict;
}

const el = (over: Partial<SensitiveElement>): SensitiveElement => ({ tag: 'div', role: 'generic', name: '', text: '', formFields: [], headings: [], isEditable: false, ...over });
const button = (label: string, over: Partial<SensitiveElement> = {}) => el({ tag: 'button', role: 'button', name: label, text: label, ...over });
const link = (label: string, href: string, over: Partial<SensitiveElement> = {}) => el({ tag: 'a', role: 'link', name: label, text: label, href, ...over });
const field = (name: string, type = 'text', autocomplete = '', label = ''): FormField => ({ name, type, autocomplete, label });
const clickButton = (label: string, over: Partial<SensitiveInput> = {}) => classify({ action: 'click', element: button(label), pageUrl: 'https://shop.test/', ...over });

type Lang = (typeof RULE_LANGS)[number];
type Examples = Record<Exclude<SensitiveClass, 'run_javascript'>, Record<Lang, { yes: string[]; no: string[] }>>;

// Button labels: `yes` must be classified as the class, `no` must not be.
const EXAMPLES: Examples = {
  payment: {
    en: { yes: ['Pay now', 'Buy now', 'Place order', 'Complete purchase', 'Pay $25.00', 'Checkout', 'Yes, confirm payment', 'Pay now →'], no: ['Payment methods', 'Buyer protection', 'How to pay your bill', 'PayPal help', 'Add to cart'] },
    de: { yes: ['Jetzt kaufen', 'Zahlungspflichtig bestellen', 'Bezahlen', 'Kauf abschließen', 'Jetzt bestellen'], no: ['Zahlungsarten', 'In den Warenkorb', 'Wie kann ich bezahlen?', 'Kaufberatung'] },
    fr: { yes: ['Payer maintenant', 'Acheter', 'Commander', 'Valider ma commande', 'Passer la commande'], no: ['Moyens de paiement', 'Ajouter au panier', 'Comment payer ?', "Guide d'achat"] },
    es: { yes: ['Pagar ahora', 'Comprar ya', 'Finalizar compra', 'Realizar pedido'], no: ['Métodos de pago', 'Añadir al carrito', '¿Cómo pagar?', 'Guía de compra'] },
  },
  transfer: {
    en: { yes: ['Transfer', 'Transfer $500', 'Send money', 'Make a transfer', 'Confirm transfer', 'Withdraw'], no: ['Transfer history', 'Money transfer fees', 'Transferred items', 'Send message'] },
    de: { yes: ['Überweisen', 'Jetzt überweisen', 'Überweisung ausführen', 'Geld senden'], no: ['Überweisungsvorlagen', 'Umsätze', 'Kontoauszüge'] },
    fr: { yes: ['Effectuer le virement', 'Virement', "Envoyer de l'argent", 'Valider le virement'], no: ['Historique des virements', 'Mes comptes', 'Virements programmés'] },
    es: { yes: ['Transferir', 'Realizar transferencia', 'Enviar dinero', 'Confirmar la transferencia'], no: ['Historial de transferencias', 'Mis cuentas'] },
  },
  trade: {
    en: { yes: ['Buy shares', 'Sell', 'Sell 10 shares', 'Place trade', 'Trade now', 'Sell stock'], no: ['Trading hours', 'Market news', 'Sell-side research', 'Seller ratings'] },
    de: { yes: ['Aktien kaufen', 'Verkaufen', 'Order aufgeben', 'Kauforder senden'], no: ['Aktienkurse', 'Handelszeiten', 'Marktberichte'] },
    fr: { yes: ['Acheter des actions', 'Vendre', "Passer l'ordre", "Valider l'ordre"], no: ['Cours des actions', 'Actualités du marché'] },
    es: { yes: ['Comprar acciones', 'Vender', 'Enviar orden', 'Confirmar orden'], no: ['Cotizaciones', 'Noticias del mercado'] },
  },
  security_settings: {
    en: { yes: ['Change password', 'Enable two-factor authentication', 'Reset your password', 'Security settings', 'Turn off 2FA', 'Generate backup codes'], no: ['Forgot your password?', 'Show password', 'Password requirements', 'Security blog'] },
    de: { yes: ['Passwort ändern', 'Zwei-Faktor-Authentifizierung aktivieren', 'Sicherheitseinstellungen', 'Neues Passwort speichern'], no: ['Passwort vergessen?', 'Passwort anzeigen', 'Sicherheitshinweise'] },
    fr: { yes: ['Changer le mot de passe', 'Modifier mon mot de passe', "Activer l'authentification à deux facteurs", 'Paramètres de sécurité'], no: ['Mot de passe oublié ?', 'Afficher le mot de passe'] },
    es: { yes: ['Cambiar contraseña', 'Restablecer la contraseña', 'Activar la verificación en dos pasos', 'Configuración de seguridad'], no: ['¿Olvidaste tu contraseña?', 'Mostrar contraseña'] },
  },
  send: {
    en: { yes: ['Send', 'Send message', 'Post', 'Post comment', 'Publish', 'Reply', 'Submit review', 'Comment'], no: ['Sent items', 'Post office locations', 'Send money', 'Publishing guidelines', 'Sender settings'] },
    de: { yes: ['Senden', 'Absenden', 'Nachricht senden', 'Veröffentlichen', 'Antworten'], no: ['Gesendete Nachrichten', 'Versandkosten', 'Geld senden'] },
    fr: { yes: ['Envoyer', 'Envoyer le message', 'Publier', 'Répondre'], no: ['Messages envoyés', "Frais d'envoi", "Envoyer de l'argent"] },
    es: { yes: ['Enviar', 'Enviar mensaje', 'Publicar', 'Responder'], no: ['Mensajes enviados', 'Gastos de envío', 'Enviar dinero'] },
  },
  delete: {
    en: { yes: ['Delete', 'Delete account', 'Remove', 'Yes, delete', 'Move to trash', '🗑 Delete', 'Permanently delete', 'Delete (3)'], no: ['Deleted items', 'How to delete files', 'Cancel', 'Removal policy', 'Undo delete', 'Remove filter'] },
    de: { yes: ['Löschen', 'Konto löschen', 'Endgültig löschen', 'Entfernen', 'Ja, löschen'], no: ['Gelöschte Elemente', 'Wie lösche ich mein Konto?', 'Löschfristen', 'Abbrechen', 'Filter entfernen'] },
    fr: { yes: ['Supprimer', 'Supprimer le compte', 'Effacer', 'Oui, supprimer'], no: ['Éléments supprimés', 'Comment supprimer mon compte ?', 'Annuler'] },
    es: { yes: ['Eliminar', 'Borrar', 'Eliminar cuenta', 'Sí, eliminar'], no: ['Elementos eliminados', '¿Cómo borrar mi cuenta?', 'Cancelar'] },
  },
  accept_terms: {
    en: { yes: ['I agree', 'I accept the Terms of Service', 'Accept terms', 'I have read and agree to the Terms'], no: ['Accept all cookies', 'Accept all', 'Terms of Service', 'I do not accept the terms', 'Accept invitation'] },
    de: { yes: ['Ich stimme zu', 'AGB akzeptieren', 'Ich bin einverstanden', 'Zustimmen und fortfahren'], no: ['Alle akzeptieren', 'Ich stimme nicht zu', 'Allgemeine Geschäftsbedingungen', 'Cookies ablehnen'] },
    fr: { yes: ["J'accepte", 'J’accepte les conditions', 'Accepter les conditions', "Je suis d'accord"], no: ['Tout accepter', "Je n'accepte pas", 'Conditions générales'] },
    es: { yes: ['Acepto', 'Aceptar los términos', 'Estoy de acuerdo', 'He leído y acepto'], no: ['Aceptar todo', 'No acepto', 'Términos y condiciones'] },
  },
};

t.test('the table has label and context rules for every class in every language', async (t) => {
  for (const cls of SENSITIVE_CLASSES) {
    if (cls === 'run_javascript') {
      t.ok(SENSITIVE_RULES.some((r) => r.class === cls && r.source === 'tool'), 'run_javascript comes from the tool');
      continue;
    }
    for (const lang of RULE_LANGS) {
      t.ok(SENSITIVE_RULES.some((r) => r.class === cls && r.lang === lang && r.source === 'label'), `${cls} has ${lang} label rules`);
      t.ok(SENSITIVE_RULES.some((r) => r.class === cls && r.lang === lang && r.source === 'context'), `${cls} has ${lang} heading rules`);
      t.ok(EXAMPLES[cls][lang].yes.length > 0 && EXAMPLES[cls][lang].no.length > 0, `${cls}/${lang} has examples both ways`);
    }
  }
  const ids = SENSITIVE_RULES.map((r) => r.id);
  t.equal(new Set(ids).size, ids.length, 'rule ids are unique');
  for (const r of SENSITIVE_RULES) t.ok(r.id.startsWith(`${r.class}.${r.source}.${r.lang}`), `${r.id} is named after class, source, language`);
});

for (const cls of Object.keys(EXAMPLES) as (keyof Examples)[]) {
  t.test(`${cls}: button labels in every language`, async (t) => {
    for (const lang of RULE_LANGS) {
      for (const label of EXAMPLES[cls][lang].yes) {
        const v = clickButton(label);
        t.ok(v.sensitive && v.classes.includes(cls), `${lang} "${label}" is ${cls}`, { reasons: v.reasons });
      }
      for (const label of EXAMPLES[cls][lang].no) {
        const v = clickButton(label);
        t.notOk(v.classes.includes(cls), `${lang} "${label}" is not ${cls}`, { reasons: v.reasons });
      }
    }
  });
}

t.test('bare "Accept" counts only on a terms dialog, in every language', async (t) => {
  const cases: [Lang, string, string][] = [
    ['en', 'Accept', 'Terms of Service'],
    ['de', 'Akzeptieren', 'Nutzungsbedingungen'],
    ['fr', 'Accepter', "Conditions générales d'utilisation"],
    ['es', 'Aceptar', 'Términos y condiciones'],
  ];
  for (const [lang, label, heading] of cases) {
    t.same(classify({ action: 'click', element: button(label, { headings: [heading] }) }).classes, ['accept_terms'], `${lang} "${label}" under "${heading}"`);
    t.same(classify({ action: 'click', element: button(label), headings: ['We value your privacy'] }).classes, [], `${lang} "${label}" on a cookie banner`);
  }
});

t.test('content is not a control: the blog-post negatives', async (t) => {
  const blog = { pageUrl: 'https://blog.test/', pageTitle: 'Blog', headings: ['Blog', 'Latest posts'] };
  t.same(classify({ action: 'click', element: link('How to delete files', 'https://blog.test/posts/how-to-delete-files'), ...blog }), { sensitive: false, classes: [], reasons: [] });
  t.same(classify({ action: 'click', element: link('Delete files you no longer need: the complete guide for 2024', '/posts/delete-old-files-guide'), ...blog }).classes, [], 'a long headline starting with Delete');
  t.same(classify({ action: 'click', element: el({ tag: 'p', role: 'paragraph', text: 'Delete' }), ...blog }).classes, [], 'a paragraph saying Delete');
  t.same(classify({ action: 'click', element: el({ tag: 'article', role: 'article', text: 'Delete the old backups before you pay the invoice and send it.' }), ...blog }).classes, [], 'article text');
  t.same(classify({ action: 'click', element: el({ tag: 'span', role: 'generic', name: 'Pay now', text: 'Pay now' }) }).classes, [], 'a span is not a control');
  t.same(classify({ action: 'click', element: link('Pay bills', '/bills') }).classes, [], 'a navigation link is not a payment');
  t.same(classify({ action: 'click', element: link('Checkout', '/cart/checkout') }).classes, [], 'a link to the checkout page pays nothing yet');
  t.same(classify({ action: 'click', element: button('x'.repeat(61)) }).classes, [], 'long labels are ignored');
  t.same(classify({ action: 'click', element: button(`Delete ${'a'.repeat(60)}`) }).classes, [], 'even when they start with a command');
});

t.test('links that act: delete links and destination URLs', async (t) => {
  t.same(classify({ action: 'click', element: link('Delete', '/items/3/delete') }).classes, ['delete']);
  t.same(classify({ action: 'click', element: link('x', 'https://app.test/items/3?_method=DELETE') }).classes, ['delete'], 'a Rails-style delete link');
  t.same(classify({ action: 'click', element: link('Remove', '/cart/remove-item?id=3') }).classes, ['delete']);
  t.same(classify({ action: 'click', element: link('Read more', '/blog/how-to-delete-files') }).classes, [], 'a slug mentioning delete');
  t.same(classify({ action: 'click', element: el({ tag: 'li', role: 'menuitem', name: 'Delete', text: 'Delete' }) }).classes, ['delete'], 'menu items are controls');
  t.same(classify({ action: 'click', element: el({ tag: 'input', role: 'button', type: 'submit', name: 'Place order', text: '' }) }).classes, ['payment'], 'submit inputs');
  t.same(classify({ action: 'click', element: el({ tag: 'input', role: 'checkbox', type: 'checkbox', name: 'I agree to the Terms of Service', text: '' }) }).classes, ['accept_terms'], 'a terms checkbox');
  t.same(classify({ action: 'click', element: el({ tag: 'input', role: 'checkbox', type: 'checkbox', name: 'Send me the newsletter', text: '' }) }).classes, [], 'other checkboxes are not sends');
  t.same(classify({ action: 'click', element: el({ tag: 'button', role: 'switch', name: 'Two-factor authentication', text: '' }), headings: ['Security'] }).classes, [], 'a switch label without a verb');
  t.same(classify({ action: 'click', element: el({ tag: 'button', role: 'switch', name: 'Enable two-factor authentication', text: '' }) }).classes, ['security_settings']);
});

t.test('form destinations', async (t) => {
  const inForm = (formAction: string, label = 'Continue') => classify({ action: 'click', element: button(label, { formAction, formMethod: 'post', formFields: [field('amount', 'number')] }), pageUrl: 'https://bank.test/app' });
  t.same(inForm('https://bank.test/api/transfers').classes, ['transfer']);
  t.same(inForm('https://shop.test/checkout/submit').classes, ['payment']);
  t.same(inForm('/trade').classes, ['trade']);
  t.same(inForm('/account/delete').classes, ['delete']);
  t.same(inForm('/settings/password').classes, ['security_settings']);
  t.same(inForm('/posts/12/comments', 'Submit').classes, ['send']);
  t.same(inForm('/terms/accept').classes, ['accept_terms']);
  t.same(inForm('/profile').classes, [], 'an ordinary form');
  t.same(classify({ action: 'click', element: link('Transfers', '/transfers') }).classes, [], 'a link to a transfer page is navigation');
});

t.test('form fields: card numbers, IBANs, order tickets, new passwords, messages, recipients, terms, confirm boxes', async (t) => {
  const submit = (fields: FormField[], label = 'Continue') => classify({ action: 'click', element: button(label, { formFields: fields, formAction: 'https://site.test/step' }) }).classes;
  t.same(submit([field('cardnumber', 'text', 'cc-number'), field('exp', 'text', 'cc-exp')]), ['payment'], 'autocomplete cc-number');
  t.same(submit([field('card_number'), field('cvv')]), ['payment'], 'names card_number/cvv');
  t.same(submit([field('ccNum')]), ['payment'], 'camelCase names');
  t.same(submit([field('x1', 'text', '', 'Kartennummer')]), ['payment'], 'German label');
  t.same(submit([field('x1', 'text', '', 'Numéro de carte')]), ['payment'], 'French label');
  t.same(submit([field('x1', 'text', '', 'Número de tarjeta')]), ['payment'], 'Spanish label');
  t.same(submit([field('iban'), field('amount', 'number')]), ['transfer'], 'an IBAN');
  t.same(submit([field('ticker'), field('qty', 'number')]), ['trade'], 'an order ticket');
  t.same(submit([field('current', 'password', 'current-password'), field('new', 'password', 'new-password')], 'Save'), ['security_settings'], 'change password');
  t.same(submit([field('pw', 'password', 'new-password'), field('pw2', 'password', 'new-password')], 'Save'), ['security_settings'], 'reset password');
  t.same(submit([field('email', 'email', 'email'), field('pw', 'password', 'new-password')], 'Sign up'), [], 'a sign-up form is not a security setting');
  t.same(submit([field('message', 'textarea', '', 'Your message')], 'Go'), ['send'], 'a message body');
  t.same(submit([field('to', 'email', '', 'To'), field('subject')], 'Go'), ['send'], 'a recipient field');
  t.same(submit([field('tos', 'checkbox', '', 'I agree to the Terms and Conditions'), field('email', 'email', 'email')], 'Create account'), ['accept_terms'], 'a terms checkbox in the form');
  t.same(submit([field('confirm', 'text', '', 'Type DELETE to confirm')], 'I understand'), ['delete'], 'a type-to-confirm box');
  t.same(submit([field('name', 'text', 'name'), field('email', 'email', 'email')]), [], 'name and e-mail are nothing sensitive');
  t.same(submit([field('message', 'text', '', 'Message')], 'Go'), [], 'a one-line "message" input is not a message body');
});

t.test('press_enter: a card-number form and other sensitive-looking pages', async (t) => {
  const cardForm = [field('cardnumber', 'text', 'cc-number', 'Card number'), field('cvc', 'text', 'cc-csc', 'CVC'), field('name', 'text', 'cc-name', 'Name on card')];
  const nameInput = el({ tag: 'input', role: 'textbox', type: 'text', name: 'Name on card', formFields: cardForm, formAction: 'https://shop.test/order', isEditable: true });
  const v = classify({ action: 'press_enter', element: nameInput, pageUrl: 'https://shop.test/order', pageTitle: 'Your order' });
  t.same(v.classes, ['payment'], 'Enter in a card form is a payment');
  t.match(v.reasons, [/payment: form field cardnumber autocomplete cc-number/]);
  t.same(classify({ action: 'click', element: el({ tag: 'input', role: 'textbox', type: 'text', name: 'Name on card', formFields: cardForm, isEditable: true }) }).classes, [], 'clicking into the field is not');

  const plainForm = [field('first'), field('last')];
  const input = (over: Partial<SensitiveElement> = {}) => el({ tag: 'input', role: 'textbox', type: 'text', name: 'First name', formFields: plainForm, isEditable: true, ...over });
  t.same(classify({ action: 'press_enter', element: input(), headings: ['Checkout'] }).classes, ['payment'], 'Enter in a form under a Checkout heading');
  t.same(classify({ action: 'press_enter', element: input(), headings: ['Zahlung'] }).classes, ['payment'], 'Zahlung');
  t.same(classify({ action: 'press_enter', element: input(), pageUrl: 'https://shop.test/checkout/step-2' }).classes, ['payment'], 'Enter in a form on /checkout');
  t.same(classify({ action: 'press_enter', element: input(), headings: ['Your profile'] }).classes, [], 'Enter in a form elsewhere');
  const search = el({ tag: 'input', role: 'searchbox', type: 'search', name: 'Search', formFields: [field('q', 'search')], isEditable: true });
  t.same(classify({ action: 'press_enter', element: search, headings: ['Checkout'] }).classes, [], 'a search box on a checkout page');
  t.same(classify({ action: 'press_enter', element: input({ formFields: [] }), headings: ['Checkout'] }).classes, [], 'Enter outside any form');
  t.same(classify({ action: 'press_enter', element: button('Pay now') }).classes, ['payment'], 'Enter on a focused button is a click');
  const chat = el({ tag: 'div', role: 'textbox', name: 'Write a message', isEditable: true });
  t.same(classify({ action: 'press_enter', element: chat }).classes, ['send'], 'Enter in a chat composer sends');
  t.same(classify({ action: 'press_enter', element: el({ tag: 'textarea', role: 'textbox', name: 'Reply', isEditable: true }) }).classes, ['send']);
  t.same(classify({ action: 'press_enter', element: el({ tag: 'div', role: 'textbox', name: 'Notes', isEditable: true }) }).classes, [], 'an editor that is not a message box');
});

t.test('headings count only together with a submit-like action', async (t) => {
  const headings: [SensitiveClass, Lang, string][] = [
    ['payment', 'en', 'Checkout'], ['payment', 'de', 'Zahlung'], ['payment', 'fr', 'Paiement'], ['payment', 'es', 'Pago'],
    ['transfer', 'en', 'Transfer money'], ['transfer', 'de', 'Neue Überweisung'], ['transfer', 'fr', 'Nouveau virement'], ['transfer', 'es', 'Nueva transferencia'],
    ['trade', 'en', 'Order ticket'], ['trade', 'de', 'Wertpapierorder'], ['trade', 'fr', 'Passer un ordre'], ['trade', 'es', 'Orden de compra'],
    ['security_settings', 'en', 'Two-factor authentication'], ['security_settings', 'de', 'Passwort ändern'], ['security_settings', 'fr', 'Sécurité'], ['security_settings', 'es', 'Seguridad'],
    ['send', 'en', 'New message'], ['send', 'de', 'Neue Nachricht'], ['send', 'fr', 'Laisser un commentaire'], ['send', 'es', 'Deja un comentario'],
    ['delete', 'en', 'Delete your account'], ['delete', 'de', 'Konto löschen'], ['delete', 'fr', 'Suppression du compte'], ['delete', 'es', 'Eliminar tu cuenta'],
    ['accept_terms', 'en', 'Terms of Service'], ['accept_terms', 'de', 'Nutzungsbedingungen'], ['accept_terms', 'fr', "Conditions générales d'utilisation"], ['accept_terms', 'es', 'Términos y condiciones'],
  ];
  const form = [field('name')];
  for (const [cls, lang, heading] of headings) {
    const inForm = classify({ action: 'submit', element: button('OK', { formFields: form }), headings: [heading] });
    t.ok(inForm.classes.includes(cls), `${lang} "${heading}" + submit is ${cls}`, { reasons: inForm.reasons });
    t.ok(classify({ action: 'click', element: button('Continue'), pageTitle: heading }).classes.includes(cls), `${lang} "${heading}" as title + Continue`);
    t.same(classify({ action: 'click', element: link('Help', '/help'), headings: [heading] }).classes, [], `${lang} "${heading}" + a link click is nothing`);
    t.same(classify({ action: 'click', element: button('Show more'), headings: [heading] }).classes, [], `${lang} "${heading}" + a button outside a form with its own label`);
    t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', type: 'text', name: 'Name', formFields: form, isEditable: true }), headings: [heading] }).classes, [], `${lang} "${heading}" + fill of a plain field`);
  }
  for (const [lang, heading] of [['en', 'Your profile'], ['de', 'Ihr Profil'], ['fr', 'Votre profil'], ['es', 'Tu perfil']]) {
    t.same(classify({ action: 'submit', element: button('OK', { formFields: form }), headings: [heading!] }).classes, [], `${lang} neutral heading`);
  }
  t.same(classify({ action: 'submit', element: button('OK', { formFields: form }), headings: ['How do I pay?'] }).classes, [], 'a question heading is content');
});

t.test('fill: handing over a card number or a new password', async (t) => {
  const form = [field('cc', 'text', 'cc-number', 'Card number'), field('email', 'email', 'email', 'E-mail')];
  t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', name: 'Card number', formFields: form, isEditable: true }) }).classes, ['payment']);
  t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', name: 'E-mail', formFields: form, isEditable: true }) }).classes, [], 'the e-mail field of the same form');
  t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', name: 'x', autocomplete: 'cc-csc', formFields: [], isEditable: true }) }).classes, ['payment'], 'autocomplete given by the caller');
  t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', type: 'password', name: 'New password', formFields: [], isEditable: true }) }).classes, ['security_settings']);
  t.same(classify({ action: 'fill', element: el({ tag: 'input', role: 'textbox', name: 'IBAN', formFields: [], isEditable: true }) }).classes, ['transfer']);
  t.same(classify({ action: 'fill', element: el({ tag: 'textarea', role: 'textbox', name: 'Message', formFields: [field('message', 'textarea', '', 'Message')], isEditable: true }) }).classes, [], 'typing a message is not sending it');
});

t.test('run_javascript comes from the tool, whatever the page says', async (t) => {
  const v = classify({ action: 'evaluate' });
  t.same(v, { sensitive: true, classes: ['run_javascript'], reasons: ['run_javascript: evaluate runs JavaScript in the page (run_javascript.tool.any.evaluate)'] });
  t.same(classify({ action: 'evaluate', element: button('Delete') }).classes, ['run_javascript'], "the element's label does not matter to evaluate");
  t.same(classify({ action: 'click', element: button('Run JavaScript') }).classes, [], 'a button that says so is not the tool');
});

t.test('verdicts say why, once per rule, and are stable', async (t) => {
  const v = classify({ action: 'click', element: button('Pay now', { formFields: [field('cardnumber', 'text', 'cc-number')], formAction: '/checkout' }), headings: ['Checkout'], pageUrl: 'https://shop.test/checkout' });
  t.same(v.classes, ['payment']);
  t.match(v.reasons, [/^payment: button "pay now" \(payment\.label\.en\.verbs\)$/, /form sends to \/checkout/, /form field cardnumber autocomplete cc-number/, /page headed "checkout"/, /submits on page \/checkout/]);
  t.same(classify({ action: 'click', element: button('Pay now') }), classify({ action: 'click', element: button('Pay now') }));
  t.same(classify({ action: 'click', element: button('Delete', { formFields: [field('iban')] }), headings: ['Checkout'] }).classes, ['payment', 'transfer', 'delete'], 'several classes, in table order');
  t.same(classify({ action: 'drag', element: button('Slide to pay') }).classes, [], 'drag reads the label like a click');
  t.same(classify({ action: 'drag', element: button('Delete') }).classes, ['delete']);
  t.same(classify({ action: 'click' }), { sensitive: false, classes: [], reasons: [] }, 'no element, no verdict');
});

t.test('every rule in the table was exercised by a test above', async (t) => {
  for (const rule of SENSITIVE_RULES) t.ok(fired.has(rule.id), `${rule.id} fired at least once`);
});
