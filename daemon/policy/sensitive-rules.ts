/**
 * The rule table behind the sensitive-action classifier (sensitive.ts). Data, not logic: each rule names its
 * class, its language and where it looks. Tests iterate this table, so a rule without a test shows up.
 *
 * Where a rule looks:
 *  - label:       the element's own short label (accessible name or text), for buttons, menu items and submit
 *                 inputs. Links count only for rules with `links` (a "Delete" link in an admin list is a
 *                 delete; a "Pay bills" link is navigation). Checkboxes/switches only for rules with `toggles`.
 *  - field:       the fields of the form the action submits (card numbers, IBAN, new passwords ...).
 *  - destination: the path a form posts to, a link points at, or (as page context) the page's own URL.
 *  - context:     page headings and title; they count only together with a submit-like action.
 *  - tool:        the tool itself (browser_evaluate runs JavaScript, whatever the page says).
 *
 * Matching is done on folded text (lower case, accents and ß folded, curly apostrophes straightened), so the
 * patterns below are written with their accents for readability and compiled folded.
 */

export const SENSITIVE_CLASSES = ['payment', 'transfer', 'trade', 'security_settings', 'send', 'delete', 'accept_terms', 'run_javascript'] as const;
export type SensitiveClass = (typeof SENSITIVE_CLASSES)[number];

export const RULE_LANGS = ['en', 'de', 'fr', 'es'] as const;
export type RuleLang = (typeof RULE_LANGS)[number] | 'any';

export type SensitiveAction = 'click' | 'press_enter' | 'fill' | 'submit' | 'evaluate' | 'drag';

interface RuleBase {
  id: string;
  class: SensitiveClass;
  lang: RuleLang;
}

export interface LabelRule extends RuleBase {
  source: 'label';
  pattern: RegExp;
  /** Also on links (default: buttons, menu items and submit inputs only). */
  links?: boolean;
  /** Also on checkboxes and switches ("I agree to the Terms", "Enable two-factor"). */
  toggles?: boolean;
  /** Longest label in words the rule applies to; longer text is content, not a control. Default 6. */
  maxWords?: number;
  /** The rule counts only when a heading or the title matches this too (bare "Accept" on a terms dialog). */
  needsContext?: RegExp;
  /** The rule does not count when the label also matches this ("I do not accept the terms"). */
  unless?: RegExp;
}

export interface FieldRule extends RuleBase {
  source: 'field';
  /** autocomplete tokens (https://html.spec.whatwg.org/#autofill-field) that mark the field. */
  autocomplete?: string[];
  /** Matched against the field's folded name (split at _ - and camelCase) and its label. */
  pattern?: RegExp;
  /** Limits the rule to these field types (textarea, checkbox ...). */
  types?: string[];
}

export interface DestinationRule extends RuleBase {
  source: 'destination';
  /** Matched against the folded pathname + search of the URL. */
  pattern: RegExp;
  /** Which URL: a link's href, a form's action, the page's own URL (as context for a submit). */
  on: ('href' | 'formAction' | 'page')[];
}

export interface ContextRule extends RuleBase {
  source: 'context';
  pattern: RegExp;
}

export interface ToolRule extends RuleBase {
  source: 'tool';
  actions: SensitiveAction[];
}

export type SensitiveRule = LabelRule | FieldRule | DestinationRule | ContextRule | ToolRule;

/** The one text normaliser: both the rules and the page text go through it. */
export function fold(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u02bc\u0060\u00b4]/g, "'")
    .replace(/[\u2010-\u2014]/g, '-')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

// Word boundaries that understand letters beyond ASCII (\b does not: it would split "löschen").
// A hyphen counts as part of the word, so "sell-side" is not "sell" and "pre-order" is not "order".
const B = '(?<![\\p{L}\\p{N}-])';
const E = '(?![\\p{L}\\p{N}-])';
// "Yes, delete" / "Ja, löschen" / "Oui, supprimer" / "Sí, eliminar" are still the command.
const FILLER = '(?:(?:yes|ja|oui|si|ok|okay)[,!.:]?\\s+)?';
// What may follow the command: amounts, counts, punctuation ("Pay $25.00", "Delete (3)", "Transfer 500 €").
const TRAIL = '[\\s\\p{N}.,:;!()\\p{Sc}%+*/#-]*';
// "Transfer history", "Payment options": a command word followed by one of these is a section name.
const NOT_A_SECTION = '(?!\\s+(?:history|options|methods|details|settings|info|information|guide|help|faq|polic(?:y|ies)|limits|status|overview|summary|page|center|centre|fees|rates|protection|receipts?|list|log|activity|tips|ideas|requirements|rules)' + E + ')';

const re = (source: string): RegExp => new RegExp(source, 'u');
/** The label starts with the command (English, French, Spanish imperatives; German too). */
const starts = (alts: string) => re(`^${FILLER}(?:${fold(alts)})${E}${NOT_A_SECTION}`);
/** The label ends with the command (German puts the infinitive last: "Konto löschen", "Jetzt kaufen"). */
const ends = (alts: string) => re(`${B}(?:${fold(alts)})${TRAIL}$`);
/** The label is the command and nothing else but amounts/counts (for words that are also nouns). */
const whole = (alts: string) => re(`^${FILLER}(?:${fold(alts)})${TRAIL}$`);
/** The phrase anywhere in the (short) label: phrases specific enough to mean the action wherever they stand. */
const anywhere = (alts: string) => re(`${B}(?:${fold(alts)})${E}`);

const TERMS_CONTEXT = anywhere(
  'terms|conditions|agreement|eula|licen[cs]e|tos|agb|nutzungsbedingungen|bedingungen|vertrag|lizenz[a-z-]*|cgu|cgv|conditions générales|contrat|términos|condiciones|contrato',
);

// Refusals are the safe choice: "I do not agree", "Ich stimme nicht zu", "Je n'accepte pas", "No acepto".
const NEGATION = anywhere("not|don't|do not|decline|disagree|reject|nicht|ablehnen|n'accepte|pas|refuser|no|rechazar|rechazo");

// Clearing a search filter or a selection removes nothing anyone keeps.
const HARMLESS_REMOVAL = anywhere('filters?|filtres?|filtros?|selection|auswahl|sélection|selección');

const label = (id: string, cls: SensitiveClass, lang: RuleLang, pattern: RegExp, extra: Partial<LabelRule> = {}): LabelRule => ({
  id: `${cls}.label.${lang}.${id}`,
  class: cls,
  lang,
  source: 'label',
  pattern,
  ...extra,
});

const LABEL_RULES: LabelRule[] = [
  // payment
  label('verbs', 'payment', 'en', starts("pay|buy|purchase|checkout|donate|place (?:your |my |the )?order|complete (?:your |my |the )?(?:purchase|order|payment)|confirm (?:and pay|payment|purchase|order)|submit (?:payment|order)|buy it now|order and pay|pay and order|subscribe and pay|start (?:paid )?subscription")),
  label('verbs', 'payment', 'de', starts('bezahlen|kaufen|zahlen|jetzt (?:kaufen|bezahlen|zahlen|bestellen)|kostenpflichtig bestellen|zahlungspflichtig bestellen|bestellung (?:abschicken|absenden|abschließen|aufgeben)|kauf abschließen|zahlung (?:bestätigen|ausführen)')),
  label('verb-last', 'payment', 'de', ends('bezahlen|kaufen|bestellen|zahlen|kauf abschließen|bestellung abschicken')),
  label('verbs', 'payment', 'fr', starts("payer|acheter|commander|régler (?:la commande|mes achats)|passer (?:la |ma |une )?commande|valider (?:la |ma |mon )?(?:commande|panier|paiement)|confirmer (?:le paiement|la commande|l'achat)|procéder au paiement|finaliser (?:la |ma )?commande|faire un don")),
  label('verbs', 'payment', 'es', starts('pagar|comprar|realizar (?:el )?pedido|finalizar (?:la )?compra|confirmar (?:el |la )?(?:pago|pedido|compra)|tramitar (?:el )?pedido|hacer (?:el )?pedido|donar')),

  // transfer: moving money out of an account
  label('verbs', 'transfer', 'en', starts('transfer|send money|wire(?: money| funds| transfer)?|make (?:a )?transfer|withdraw|confirm (?:the )?transfer|send (?:a )?payment|move money|pay out|cash out')),
  label('verbs', 'transfer', 'de', starts('überweisen|überweisung (?:ausführen|absenden|senden|bestätigen|freigeben)|geld (?:senden|überweisen)|auszahlen|umbuchen|jetzt überweisen')),
  label('verb-last', 'transfer', 'de', ends('überweisen|auszahlen|umbuchen|geld senden')),
  label('verbs', 'transfer', 'fr', starts("virer|effectuer (?:le |un )?virement|faire (?:un )?virement|valider (?:le )?virement|confirmer (?:le )?virement|envoyer de l'argent|retirer (?:de l'argent|des fonds)")),
  label('noun', 'transfer', 'fr', whole('virement')),
  label('verbs', 'transfer', 'es', starts('transferir|realizar (?:la |una )?transferencia|hacer (?:una )?transferencia|confirmar (?:la )?transferencia|enviar dinero|retirar (?:fondos|dinero)')),

  // trade: securities and crypto
  label('verbs', 'trade', 'en', starts('(?:buy|sell)(?: \\d+)? (?:shares?|stocks?|crypto|bitcoin|btc|eth|options?|etfs?|units)|sell|sell now|trade|trade now|place (?:a )?trade|submit (?:trade|order to (?:buy|sell))|execute (?:the )?(?:trade|order)|review and (?:buy|sell)')),
  label('phrases', 'trade', 'de', anywhere('(?:aktien?|wertpapiere?|fonds|etfs?|krypto[a-z-]*|bitcoin) (?:kaufen|verkaufen|handeln|ordern)|kauforder[a-z-]*|verkaufsorder[a-z-]*|order (?:aufgeben|platzieren|senden|ausführen)')),
  label('verbs', 'trade', 'de', starts('verkaufen|jetzt verkaufen|handeln')),
  label('verb-last', 'trade', 'de', ends('verkaufen')),
  label('verbs', 'trade', 'fr', starts("(?:acheter|vendre) (?:des |\\d+ )?(?:actions?|titres?|crypto[a-z-]*|bitcoins?|etf)|vendre|passer (?:l'|un |mon )?ordre|envoyer (?:l'|mon )?ordre|valider (?:l'|mon )?ordre|négocier")),
  label('verbs', 'trade', 'es', starts('(?:comprar|vender) (?:\\d+ )?(?:acciones|valores|cripto[a-z-]*|bitcoins?|etf)|vender|enviar (?:la )?orden|colocar (?:la )?orden|confirmar (?:la )?orden|operar')),

  // delete: links count too (a GET "Delete" link in an admin table deletes)
  label('verbs', 'delete', 'en', starts('delete|remove|erase|destroy|discard|wipe|purge|trash|move to trash|empty (?:the )?trash|permanently delete|deactivate (?:my |your |this )?account|close (?:my |your |this )?account'), { links: true, unless: HARMLESS_REMOVAL }),
  label('verbs', 'delete', 'de', starts('löschen|entfernen|endgültig löschen|konto (?:löschen|schließen|deaktivieren)|in den papierkorb(?: verschieben| legen)?|papierkorb leeren'), { links: true, unless: HARMLESS_REMOVAL }),
  label('verb-last', 'delete', 'de', ends('löschen|entfernen|leeren|in den papierkorb verschieben|konto schließen|deaktivieren'), { links: true, unless: HARMLESS_REMOVAL }),
  label('verbs', 'delete', 'fr', starts('supprimer|effacer|retirer|supprimer définitivement|vider la corbeille|mettre à la corbeille|désactiver (?:mon |le |votre )?compte|fermer (?:mon |le |votre )?compte'), { links: true, unless: HARMLESS_REMOVAL }),
  label('verbs', 'delete', 'es', starts('eliminar|borrar|suprimir|quitar|vaciar (?:la )?papelera|mover a la papelera|desactivar (?:mi |la |tu )?cuenta|cerrar (?:mi |la |tu )?cuenta'), { links: true, unless: HARMLESS_REMOVAL }),

  // send: messages, posts, publishing (money is transfer, not send)
  label('verbs', 'send', 'en', starts("send(?! (?:money|funds|a payment|payment))|send (?:message|email|e-mail|mail|reply|invites?|invitation|now)|publish|tweet|reply all|submit (?:message|comment|review|reply|post|feedback|application)|share now")),
  label('nouns', 'send', 'en', whole('post|post (?:comment|reply|message|it|now|update|review)|reply|comment|respond')),
  label('verbs', 'send', 'de', starts('senden|absenden|abschicken|verschicken|versenden|veröffentlichen|posten|antworten|kommentieren|nachricht (?:senden|schicken)|jetzt senden')),
  label('verb-last', 'send', 'de', ends('(?<!geld )senden|absenden|abschicken|verschicken|versenden|veröffentlichen|posten')),
  label('verbs', 'send', 'fr', starts("envoyer(?! de l'argent)|publier|poster|répondre|commenter|envoyer (?:le |un )?(?:message|e-mail|courriel)")),
  label('verbs', 'send', 'es', starts('enviar(?! dinero)|publicar|responder|comentar|enviar (?:el |un )?(?:mensaje|correo)')),

  // accept_terms: cookie banners ("Accept all") are not terms; bare "Accept" counts only on a terms dialog
  label('phrases', 'accept_terms', 'en', anywhere('(?:i )?(?:accept|agree to|agree with|consent to) (?:the |all |our |these |this )?(?:terms|conditions|terms of (?:service|use)|terms and conditions|user agreement|licen[cs]e(?: agreement)?|eula|contract|agreement)|i (?:agree|accept|consent)|i have read and (?:agree|accept)'), { toggles: true, maxWords: 14, unless: NEGATION }),
  label('bare', 'accept_terms', 'en', whole('accept|agree|accept and continue|agree and continue|accept & continue|agree & continue'), { needsContext: TERMS_CONTEXT, unless: NEGATION }),
  label('phrases', 'accept_terms', 'de', anywhere('(?:agb|nutzungsbedingungen|bedingungen|datenschutzbestimmungen|lizenzvereinbarung|vertrag) (?:akzeptieren|zustimmen|annehmen)|ich (?:stimme|akzeptiere)|ich bin (?:damit )?einverstanden|zustimmen und (?:fortfahren|weiter)|akzeptieren und (?:fortfahren|weiter)'), { toggles: true, maxWords: 14, unless: NEGATION }),
  label('bare', 'accept_terms', 'de', whole('akzeptieren|zustimmen|annehmen|einverstanden'), { needsContext: TERMS_CONTEXT, unless: NEGATION }),
  label('phrases', 'accept_terms', 'fr', anywhere("j'accepte|je suis d'accord|accepter (?:les |la )?(?:conditions|cgu|cgv|contrat|licence)|accepter et continuer|j'ai lu et (?:j'accepte|accepte)"), { toggles: true, maxWords: 14, unless: NEGATION }),
  label('bare', 'accept_terms', 'fr', whole('accepter|valider et accepter'), { needsContext: TERMS_CONTEXT, unless: NEGATION }),
  label('phrases', 'accept_terms', 'es', anywhere('acepto|estoy de acuerdo|aceptar (?:los |las )?(?:términos|condiciones|contrato|licencia)|aceptar y continuar|he leído y acepto'), { toggles: true, maxWords: 14, unless: NEGATION }),
  label('bare', 'accept_terms', 'es', whole('aceptar'), { needsContext: TERMS_CONTEXT, unless: NEGATION }),

  // security_settings: passwords, second factors, account recovery
  label('phrases', 'security_settings', 'en', anywhere('(?:change|update|reset|set|save|create) (?:your |my |a |the )?(?:new )?password|(?:enable|disable|turn on|turn off|set up|setup|activate|deactivate|remove|reset|configure) (?:two[- ]factor|2fa|two[- ]step|2[- ]step|multi[- ]factor|mfa|authenticator|security keys?|passkeys?)(?: authentication| verification| app)?|security settings|(?:add|remove|delete|revoke) (?:a |the )?(?:passkey|security key|recovery (?:email|phone)|trusted device|app password)|change (?:your |my )?(?:email|e-mail)(?: address)?|(?:re)?generate (?:new )?(?:backup|recovery) codes|sign out (?:of )?(?:all|every) (?:other )?(?:sessions|devices)|revoke (?:all )?sessions'), { toggles: true }),
  label('phrases', 'security_settings', 'de', anywhere('(?:passwort|kennwort) (?:ändern|zurücksetzen|festlegen|speichern|aktualisieren)|neues (?:passwort|kennwort) (?:festlegen|speichern)|(?:zwei-faktor-authentifizierung|2fa|zwei-faktor|zweistufige verifizierung|passkey|sicherheitsschlüssel) (?:aktivieren|deaktivieren|einrichten|entfernen)|sicherheitseinstellungen|e-mail-adresse ändern|von allen geräten abmelden'), { toggles: true }),
  label('phrases', 'security_settings', 'fr', anywhere("(?:changer|modifier|réinitialiser|définir|mettre à jour|enregistrer) (?:le |mon |votre )?(?:nouveau )?mot de passe|(?:activer|désactiver|configurer) (?:l'|la |le )?(?:authentification à deux facteurs|double authentification|validation en deux étapes|2fa|clé de sécurité)|paramètres de sécurité|modifier (?:l'|mon )?(?:adresse )?e-mail|se déconnecter de tous les appareils"), { toggles: true }),
  label('phrases', 'security_settings', 'es', anywhere('(?:cambiar|restablecer|actualizar|establecer|guardar) (?:la |tu |mi )?(?:nueva )?contraseña|(?:activar|desactivar|configurar) (?:la )?(?:verificación en dos pasos|autenticación de dos factores|2fa|llave de seguridad)|configuración de seguridad|cambiar (?:el |tu |mi )?correo(?: electrónico)?|cerrar sesión en todos los dispositivos'), { toggles: true }),
];

const FIELD_RULES: FieldRule[] = [
  {
    id: 'payment.field.any.card',
    class: 'payment',
    lang: 'any',
    source: 'field',
    autocomplete: ['cc-number', 'cc-csc', 'cc-exp', 'cc-exp-month', 'cc-exp-year'],
    pattern: anywhere('card ?number|card ?no|cardnumber|credit ?card|debit ?card|cc ?num(?:ber)?|ccnum|cvv2?|cvc2?|csc|card ?code|card ?verification|security ?code|kartennummer|kreditkarten?(?:nummer)?|prüfnummer|numéro de (?:la )?carte|carte bancaire|cryptogramme|número de (?:la )?tarjeta|tarjeta de (?:crédito|débito)|código de seguridad'),
  },
  {
    id: 'transfer.field.any.bank-account',
    class: 'transfer',
    lang: 'any',
    source: 'field',
    pattern: anywhere('iban|bic|swift(?: code)?|routing ?number|sort ?code|beneficiary|payee|empfänger-?iban|begünstigter|bénéficiaire|beneficiario'),
  },
  {
    id: 'trade.field.any.order-ticket',
    class: 'trade',
    lang: 'any',
    source: 'field',
    pattern: anywhere("ticker|stock ?symbol|number of shares|limit ?price|stop ?price|order ?type|stückzahl|anzahl (?:der )?aktien|limitkurs|nombre d'actions|cours limite|prix limite|número de acciones|precio límite"),
  },
  {
    // Only counted with a current-password field or without an e-mail/username field: a sign-up form has a
    // new password too, and signing up is not a security setting (sensitive.ts applies that).
    id: 'security_settings.field.any.new-password',
    class: 'security_settings',
    lang: 'any',
    source: 'field',
    autocomplete: ['new-password'],
    pattern: anywhere('new ?password|neues (?:passwort|kennwort)|nouveau mot de passe|nueva contraseña'),
  },
  {
    id: 'send.field.any.message-body',
    class: 'send',
    lang: 'any',
    source: 'field',
    types: ['textarea', 'contenteditable'],
    pattern: anywhere('message|comment|reply|body|post|tweet|nachricht|kommentar|antwort|mitteilung|commentaire|réponse|mensaje|comentario|respuesta'),
  },
  {
    id: 'send.field.any.recipient',
    class: 'send',
    lang: 'any',
    source: 'field',
    pattern: whole('to|recipients?|cc|bcc|empfänger|an|destinataires?|à|destinatarios?|para'),
  },
  {
    id: 'accept_terms.field.any.terms-checkbox',
    class: 'accept_terms',
    lang: 'any',
    source: 'field',
    types: ['checkbox'],
    pattern: TERMS_CONTEXT,
  },
  {
    // "Type DELETE to confirm" boxes guard irreversible deletes.
    id: 'delete.field.any.confirm-box',
    class: 'delete',
    lang: 'any',
    source: 'field',
    pattern: re(fold('(?:delete|löschen|supprimer|eliminar|borrar).{0,40}(?:confirm|bestätig|confirmer|confirmar)|(?:confirm|bestätig|confirmer|confirmar).{0,40}(?:delet|lösch|suppr|elimin|borr)')),
  },
];

/** A path segment that is the keyword, optionally with one more word: /delete, /delete-account, /cart/checkout. */
const segment = (alts: string) => re(`(?:^|/)(?:${alts})(?:[-_][a-z0-9]+)?(?:\\.[a-z]+)?(?:/|$|[?#;])`);

const DESTINATION_RULES: DestinationRule[] = [
  { id: 'payment.destination.any.checkout', class: 'payment', lang: 'any', source: 'destination', on: ['formAction', 'page'], pattern: segment('checkout|pay|payment|payments|purchase|buy|place-?order|placeorder|kasse|bezahlen|paiement|pago') },
  { id: 'transfer.destination.any.transfer', class: 'transfer', lang: 'any', source: 'destination', on: ['formAction', 'page'], pattern: segment('transfers?|wire|send-?money|payouts?|withdraw(?:al)?|ueberweisung|uberweisung|virements?|transferencias?') },
  { id: 'trade.destination.any.trade', class: 'trade', lang: 'any', source: 'destination', on: ['formAction', 'page'], pattern: segment('trades?|trading|order-?ticket|place-?trade') },
  { id: 'delete.destination.any.delete', class: 'delete', lang: 'any', source: 'destination', on: ['href', 'formAction'], pattern: segment('delete|remove|destroy|erase') },
  { id: 'delete.destination.any.method', class: 'delete', lang: 'any', source: 'destination', on: ['href', 'formAction'], pattern: re('[?&](?:_method|action|op|do|cmd)=(?:delete|remove|destroy)(?:&|$|#)') },
  { id: 'security_settings.destination.any.security', class: 'security_settings', lang: 'any', source: 'destination', on: ['formAction', 'page'], pattern: segment('password|passwords|change-?password|reset-?password|security|2fa|mfa|two-?factor|passkeys?|totp') },
  { id: 'send.destination.any.send', class: 'send', lang: 'any', source: 'destination', on: ['formAction'], pattern: segment('send|compose|reply|publish|comments?|messages|tweet') },
  { id: 'accept_terms.destination.any.accept', class: 'accept_terms', lang: 'any', source: 'destination', on: ['formAction'], pattern: segment('accept|consent|agree') },
];

const context = (cls: SensitiveClass, lang: RuleLang, alts: string): ContextRule => ({ id: `${cls}.context.${lang}`, class: cls, lang, source: 'context', pattern: anywhere(alts) });

const CONTEXT_RULES: ContextRule[] = [
  context('payment', 'en', 'checkout|payment(?: details| information| method)?|billing(?: details| information)?|order summary|review (?:your )?order|place (?:your )?order|pay'),
  context('payment', 'de', 'kasse|zahlung|bezahlung|zahlungs(?:informationen|art|methode|daten)|bestellung (?:prüfen|abschließen|überprüfen)|bezahlen|bestellübersicht'),
  context('payment', 'fr', 'paiement|caisse|finaliser (?:la |votre )?commande|récapitulatif de (?:la |votre )?commande|validation de (?:la |votre )?commande|payer'),
  context('payment', 'es', 'pago|caja|finalizar (?:la )?compra|resumen del pedido|realizar pedido|pagar|datos de pago'),
  context('transfer', 'en', 'transfer(?: money| funds)?|send money|wire transfer|new payee|withdraw(?:al)?'),
  context('transfer', 'de', 'überweisung|neue überweisung|geld senden|auszahlung|umbuchung'),
  context('transfer', 'fr', 'virement|nouveau virement|envoyer de l\'argent|retrait'),
  context('transfer', 'es', 'transferencia|nueva transferencia|enviar dinero|retiro'),
  context('trade', 'en', 'trade|order ticket|buy (?:shares|stock)|sell (?:shares|stock)|place (?:a )?trade'),
  context('trade', 'de', 'order(?:maske|aufgabe)|wertpapierorder|aktien (?:kaufen|verkaufen)|handeln'),
  context('trade', 'fr', "passer un ordre|ordre de bourse|acheter des actions|vendre des actions"),
  context('trade', 'es', 'orden de (?:compra|venta)|comprar acciones|vender acciones|operar'),
  context('security_settings', 'en', 'change (?:your )?password|reset (?:your )?password|security(?: settings)?|two[- ]factor(?: authentication)?|2fa|two[- ]step verification|passkeys?'),
  context('security_settings', 'de', '(?:passwort|kennwort) (?:ändern|zurücksetzen)|sicherheit(?:seinstellungen)?|zwei-faktor-authentifizierung'),
  context('security_settings', 'fr', '(?:changer|modifier|réinitialiser) (?:le |votre )?mot de passe|sécurité|authentification à deux facteurs'),
  context('security_settings', 'es', '(?:cambiar|restablecer) (?:la |tu )?contraseña|seguridad|verificación en dos pasos'),
  context('send', 'en', 'new message|compose(?: message| email)?|write (?:a )?(?:message|review|comment)|leave a (?:comment|reply|review)|new post|reply to'),
  context('send', 'de', 'neue nachricht|nachricht (?:schreiben|verfassen)|kommentar schreiben|bewertung schreiben|neuer beitrag'),
  context('send', 'fr', 'nouveau message|écrire un (?:message|avis|commentaire)|laisser un (?:commentaire|avis)|nouvelle publication'),
  context('send', 'es', 'nuevo mensaje|redactar(?: mensaje)?|escribir (?:un )?(?:mensaje|comentario|reseña)|deja (?:un )?(?:comentario|reseña)|nueva publicación'),
  context('delete', 'en', 'delete (?:your |this |my )?(?:account|repository|project|file|files|data|item)s?|permanently delete|close (?:your )?account'),
  context('delete', 'de', '(?:konto|daten|datei(?:en)?|projekt) löschen|endgültig löschen'),
  context('delete', 'fr', 'supprimer (?:le |votre |mon |ce )?(?:compte|fichier|projet|données)|suppression (?:du |de votre )?compte'),
  context('delete', 'es', '(?:eliminar|borrar) (?:la |tu |mi )?(?:cuenta|archivo|proyecto|datos)'),
  context('accept_terms', 'en', 'terms of (?:service|use)|terms and conditions|user agreement|license agreement'),
  context('accept_terms', 'de', 'agb|allgemeine geschäftsbedingungen|nutzungsbedingungen|lizenzvereinbarung'),
  context('accept_terms', 'fr', "conditions générales(?: d'utilisation| de vente)?|cgu|cgv|contrat de licence"),
  context('accept_terms', 'es', 'términos y condiciones|condiciones de uso|términos de servicio|contrato de licencia'),
];

const TOOL_RULES: ToolRule[] = [
  { id: 'run_javascript.tool.any.evaluate', class: 'run_javascript', lang: 'any', source: 'tool', actions: ['evaluate'] },
];

export const SENSITIVE_RULES: readonly SensitiveRule[] = [...LABEL_RULES, ...FIELD_RULES, ...DESTINATION_RULES, ...CONTEXT_RULES, ...TOOL_RULES];

/**
 * Labels that start like a question or a headline are content ("How to delete files", "Wie lösche ich ...?"),
 * never a control, whatever words follow.
 */
export const QUESTION = re(
  // The interrogative must be followed by more words: "Comment" alone is an English button, not French "how".
  `^(?:¿|(?:how|why|what|when|where|which|who|can|should|do|does|is|are|wie|warum|was|wann|wo|welche[rsnm]?|kann|comment|pourquoi|quand|quoi|quel(?:le)?s?|como|por que|que|cuando|donde|cual(?:es)?)(?=\\s+[\\p{L}\\p{N}]))|\\?\\s*$`,
);

/**
 * Generic confirm labels ("Continue", "Weiter", "Valider") say nothing themselves; on a checkout page or in
 * a payment form they are the step that pays, so they let page context count outside a form too.
 */
export const GENERIC_CONFIRM = whole(
  'continue|confirm|submit|next|ok|done|complete|finish|save|place|proceed|weiter|bestätigen|absenden|fertig|speichern|fortfahren|continuer|valider|confirmer|suivant|enregistrer|terminer|continuar|confirmar|siguiente|guardar|finalizar|aceptar',
);

/**
 * Links a crawl or an explore of the user's signed-in profile never follows: GET links that act (an admin
 * table's `/items/5/delete`, a newsletter's `/unsubscribe?t=…`, a shop's `?add-to-cart=12`, `/logout`). Read by
 * destructive-links.ts against the link's address (path segments, query keys and values, split at / - _ . and
 * camelCase) and, where known, the link's text. A word counts at the start or the end of a short piece (German
 * puts the verb last: "konto-loeschen"); a piece of five words or more is a title, not an action
 * ("how-to-delete-files"). Written with accents; matched folded, with ä/ö/ü also as ae/oe/ue as URLs spell them.
 */
export type DestructiveAction = 'delete' | 'cancel' | 'unsubscribe' | 'sign_out' | 'cart' | 'buy' | 'confirm' | 'account' | 'revoke' | 'reset' | 'subscribe';

export interface DestructiveLinkWord {
  id: string;
  lang: RuleLang;
  action: DestructiveAction;
  /** Words or phrases (words separated by spaces). */
  words: string[];
  /** Counts only when the link (address or text) also names one of these: "add" only beside a cart. */
  with?: string[];
  /** Counts only as a whole piece (a path segment, a query value, the whole text): "baja", "salir". */
  whole?: boolean;
  /** The address only: as link text these words are navigation ("Buy now" leads to a product page). */
  addressOnly?: boolean;
}

const CARTS = ['cart', 'basket', 'bag', 'trolley', 'warenkorb', 'einkaufswagen', 'panier', 'carrito', 'cesta'];
const BINS = [...CARTS, 'trash', 'bin', 'papierkorb', 'corbeille', 'papelera'];
const ACCOUNTS = ['account', 'profile', 'konto', 'profil', 'compte', 'cuenta', 'perfil'];

export const DESTRUCTIVE_LINK_WORDS: readonly DestructiveLinkWord[] = [
  { id: 'en.delete', lang: 'en', action: 'delete', words: ['delete', 'remove', 'destroy', 'erase', 'purge', 'wipe', 'discard', 'move to trash'] },
  { id: 'de.delete', lang: 'de', action: 'delete', words: ['löschen', 'entfernen', 'vernichten', 'in den papierkorb'] },
  { id: 'fr.delete', lang: 'fr', action: 'delete', words: ['supprimer', 'effacer', 'retirer', 'suppression', 'mettre à la corbeille'] },
  { id: 'es.delete', lang: 'es', action: 'delete', words: ['eliminar', 'borrar', 'suprimir', 'quitar', 'mover a la papelera'] },

  { id: 'en.cancel', lang: 'en', action: 'cancel', words: ['cancel'] },
  { id: 'de.cancel', lang: 'de', action: 'cancel', words: ['kündigen', 'stornieren', 'abbrechen'] },
  { id: 'fr.cancel', lang: 'fr', action: 'cancel', words: ['annuler', 'résilier'] },
  { id: 'es.cancel', lang: 'es', action: 'cancel', words: ['cancelar', 'anular'] },

  { id: 'en.unsubscribe', lang: 'en', action: 'unsubscribe', words: ['unsubscribe', 'unsub', 'opt out', 'optout'] },
  { id: 'de.unsubscribe', lang: 'de', action: 'unsubscribe', words: ['abbestellen', 'austragen', 'abmeldung', 'newsletter abmelden'] },
  { id: 'fr.unsubscribe', lang: 'fr', action: 'unsubscribe', words: ['désabonner', 'désinscrire', 'désinscription', 'désabonnement'] },
  { id: 'es.unsubscribe', lang: 'es', action: 'unsubscribe', words: ['darse de baja', 'dar de baja', 'desuscribir', 'desuscribirse', 'desuscripción', 'darme de baja'] },
  { id: 'es.unsubscribe-noun', lang: 'es', action: 'unsubscribe', words: ['baja'], whole: true },

  { id: 'en.sign_out', lang: 'en', action: 'sign_out', words: ['logout', 'log out', 'logoff', 'log off', 'signout', 'sign out', 'signoff', 'sign off'] },
  { id: 'de.sign_out', lang: 'de', action: 'sign_out', words: ['abmelden', 'ausloggen', 'auslogen'] },
  { id: 'fr.sign_out', lang: 'fr', action: 'sign_out', words: ['déconnexion', 'déconnecter', 'se déconnecter'] },
  { id: 'es.sign_out', lang: 'es', action: 'sign_out', words: ['cerrar sesión', 'desconectar', 'desconectarse'] },
  { id: 'es.sign_out-exit', lang: 'es', action: 'sign_out', words: ['salir'], whole: true },

  { id: 'en.cart', lang: 'en', action: 'cart', words: ['add', 'add to', 'put in'], with: CARTS },
  { id: 'en.cart-empty', lang: 'en', action: 'cart', words: ['empty', 'clear'], with: BINS },
  { id: 'de.cart', lang: 'de', action: 'cart', words: ['hinzufügen', 'in den warenkorb', 'in den einkaufswagen', 'leeren'], with: BINS },
  { id: 'fr.cart', lang: 'fr', action: 'cart', words: ['ajouter', 'ajouter au panier', 'vider'], with: BINS },
  { id: 'es.cart', lang: 'es', action: 'cart', words: ['añadir', 'agregar', 'añadir al carrito', 'agregar al carrito', 'vaciar'], with: BINS },

  { id: 'en.buy', lang: 'en', action: 'buy', words: ['buy', 'buy now', 'checkout', 'pay', 'pay now', 'purchase', 'place order', 'placeorder', 'order now', 'submit order'], addressOnly: true },
  { id: 'de.buy', lang: 'de', action: 'buy', words: ['kaufen', 'jetzt kaufen', 'bezahlen', 'bestellen', 'kasse'], addressOnly: true },
  { id: 'fr.buy', lang: 'fr', action: 'buy', words: ['acheter', 'payer', 'commander', 'passer commande', 'passer la commande'], addressOnly: true },
  { id: 'es.buy', lang: 'es', action: 'buy', words: ['comprar', 'pagar', 'realizar pedido', 'finalizar compra', 'tramitar pedido'], addressOnly: true },

  { id: 'en.subscribe', lang: 'en', action: 'subscribe', words: ['subscribe', 'opt in', 'optin'], addressOnly: true },
  { id: 'de.subscribe', lang: 'de', action: 'subscribe', words: ['abonnieren'], addressOnly: true },
  { id: 'fr.subscribe', lang: 'fr', action: 'subscribe', words: ["s'abonner", 'abonner'], addressOnly: true },
  { id: 'es.subscribe', lang: 'es', action: 'subscribe', words: ['suscribir', 'suscribirse', 'suscribirme'], addressOnly: true },

  { id: 'en.confirm', lang: 'en', action: 'confirm', words: ['confirm', 'approve'] },
  { id: 'de.confirm', lang: 'de', action: 'confirm', words: ['bestätigen', 'freigeben', 'genehmigen'] },
  { id: 'fr.confirm', lang: 'fr', action: 'confirm', words: ['confirmer', 'approuver'] },
  { id: 'es.confirm', lang: 'es', action: 'confirm', words: ['confirmar', 'aprobar'] },

  { id: 'en.account', lang: 'en', action: 'account', words: ['deactivate', 'disable'] },
  { id: 'en.account-close', lang: 'en', action: 'account', words: ['close', 'terminate'], with: ACCOUNTS },
  { id: 'de.account', lang: 'de', action: 'account', words: ['deaktivieren', 'sperren'] },
  { id: 'de.account-close', lang: 'de', action: 'account', words: ['schließen', 'auflösen'], with: ACCOUNTS },
  { id: 'fr.account', lang: 'fr', action: 'account', words: ['désactiver'] },
  { id: 'fr.account-close', lang: 'fr', action: 'account', words: ['fermer', 'clôturer'], with: ACCOUNTS },
  { id: 'es.account', lang: 'es', action: 'account', words: ['desactivar'] },
  { id: 'es.account-close', lang: 'es', action: 'account', words: ['cerrar'], with: ACCOUNTS },

  { id: 'en.revoke', lang: 'en', action: 'revoke', words: ['revoke'] },
  { id: 'de.revoke', lang: 'de', action: 'revoke', words: ['widerrufen', 'entziehen'] },
  { id: 'fr.revoke', lang: 'fr', action: 'revoke', words: ['révoquer'] },
  { id: 'es.revoke', lang: 'es', action: 'revoke', words: ['revocar'] },

  { id: 'en.reset', lang: 'en', action: 'reset', words: ['reset'] },
  { id: 'de.reset', lang: 'de', action: 'reset', words: ['zurücksetzen'] },
  { id: 'fr.reset', lang: 'fr', action: 'reset', words: ['réinitialiser'] },
  { id: 'es.reset', lang: 'es', action: 'reset', words: ['restablecer'] },
];

/**
 * Words that make a piece content, not a command: "remove-background-guide" is an article, "clear filters" and
 * "reset search" change a view, not the user's data.
 */
export const DESTRUCTIVE_LINK_HARMLESS = [
  'guide', 'guides', 'how', 'howto', 'why', 'what', 'tutorial', 'tutorials', 'tips', 'faq', 'faqs', 'help', 'docs', 'documentation', 'example', 'examples', 'policy', 'policies',
  'anleitung', 'hilfe', 'ratgeber', 'tipps', 'wie', 'richtlinie', 'bedingungen',
  'aide', 'tutoriel', 'conseils', 'politique', 'conditions',
  'guia', 'ayuda', 'consejos', 'como', 'politica', 'condiciones',
  'filter', 'filters', 'filtres', 'filtros', 'filtro', 'selection', 'auswahl', 'seleccion', 'search', 'suche', 'recherche', 'busqueda', 'zoom', 'view', 'ansicht', 'vue', 'vista',
];

/**
 * A first path segment that names a reading section: below /docs/ or /blog/, "delete-user" is a page about
 * deleting users, not a deletion. The query still counts there (`/wiki/Page?action=delete`).
 */
export const DESTRUCTIVE_LINK_READING_SECTIONS = [
  'docs', 'doc', 'documentation', 'blog', 'blogs', 'wiki', 'help', 'faq', 'guide', 'guides', 'tutorials', 'learn', 'manual', 'reference', 'kb', 'knowledge-base', 'news', 'articles', 'article',
  'hilfe', 'anleitungen', 'ratgeber', 'aide', 'ayuda', 'noticias', 'actualites',
];
