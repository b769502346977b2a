/**
 * The destructive-link table (DESTRUCTIVE_LINK_WORDS) and its judge: links that act are caught in each language
 * the sensitive-action classifier knows, by address and by text; links that only read (articles about deleting,
 * filters, search for the word, order history) are not. Every row of the table fires at least once.
 */
import t from 'tap';
import { destructiveLink, destructiveReason, words } from '../../../daemon/policy/destructive-links.js';
import { DESTRUCTIVE_LINK_WORDS, RULE_LANGS } from '../../../daemon/policy/sensitive-rules.js';

const fired = new Set<string>();
const S = 'https://shop.example';

/** [address, text?, the action expected] */
const ACTS: [string, string | undefined, string][] = [
  // English: addresses
  [`${S}/account/delete?id=1`, undefined, 'delete'],
  [`${S}/items/5/remove`, undefined, 'delete'],
  [`${S}/posts/12/destroy`, undefined, 'delete'],
  [`${S}/delete.php?file=3`, undefined, 'delete'],
  [`${S}/account-delete`, undefined, 'delete'],
  [`${S}/admin/cache/purge`, undefined, 'delete'],
  [`${S}/deleteItem?id=4`, undefined, 'delete'],
  [`${S}/wipe-device`, undefined, 'delete'],
  [`${S}/discard-draft/9`, undefined, 'delete'],
  [`${S}/erase`, undefined, 'delete'],
  [`${S}/mail/7/move-to-trash`, undefined, 'delete'],
  [`${S}/index.php?action=delete&id=3`, undefined, 'delete'],
  [`${S}/w/index.php?title=Main&action=delete`, undefined, 'delete'],
  [`${S}/orders/44/cancel`, undefined, 'cancel'],
  [`${S}/unsubscribe`, undefined, 'unsubscribe'],
  [`${S}/newsletter/unsub?t=abc`, undefined, 'unsubscribe'],
  [`${S}/email/opt-out`, undefined, 'unsubscribe'],
  [`${S}/logout`, undefined, 'sign_out'],
  [`${S}/user/signOut`, undefined, 'sign_out'],
  [`${S}/session/log_off`, undefined, 'sign_out'],
  [`${S}/?logout=1`, undefined, 'sign_out'],
  [`${S}/cart/add`, undefined, 'cart'],
  [`${S}/cart/add?sku=12`, undefined, 'cart'],
  [`${S}/add-to-cart/12`, undefined, 'cart'],
  [`${S}/addToCart?id=3`, undefined, 'cart'],
  [`${S}/shop/?add-to-cart=77`, undefined, 'cart'],
  [`${S}/basket/empty`, undefined, 'cart'],
  [`${S}/cart?clear=1`, undefined, 'cart'],
  [`${S}/buy-now/12`, undefined, 'buy'],
  [`${S}/checkout`, undefined, 'buy'],
  [`${S}/pay`, undefined, 'buy'],
  [`${S}/orders/place-order`, undefined, 'buy'],
  [`${S}/purchase?item=3`, undefined, 'buy'],
  [`${S}/newsletter/subscribe`, undefined, 'subscribe'],
  [`${S}/email/confirm?token=abc`, undefined, 'confirm'],
  [`${S}/requests/5/approve`, undefined, 'confirm'],
  [`${S}/settings/deactivate`, undefined, 'account'],
  [`${S}/2fa/disable`, undefined, 'account'],
  [`${S}/account/close`, undefined, 'account'],
  [`${S}/settings/terminate-account`, undefined, 'account'],
  [`${S}/tokens/9/revoke`, undefined, 'revoke'],
  [`${S}/settings/reset`, undefined, 'reset'],
  [`${S}/login?next=/account/delete`, undefined, 'delete'],
  [`${S}/out?to=%2Flogout`, undefined, 'sign_out'],
  // English: text with an address that says nothing
  [`${S}/a/7f3e`, 'Delete', 'delete'],
  [`${S}/a/7f3e`, 'Yes, remove this item', 'delete'],
  [`${S}/a/7f3e`, 'Unsubscribe', 'unsubscribe'],
  [`${S}/a/7f3e`, 'Sign out', 'sign_out'],
  [`${S}/a/7f3e`, 'Add to cart', 'cart'],
  [`${S}/a/7f3e`, 'Empty basket', 'cart'],
  [`${S}/a/7f3e`, 'Cancel subscription', 'cancel'],
  [`${S}/a/7f3e`, 'Revoke access', 'revoke'],
  [`${S}/a/7f3e`, 'Confirm', 'confirm'],
  [`${S}/a/7f3e`, 'Deactivate', 'account'],
  [`${S}/a/7f3e`, 'Close my account', 'account'],
  [`${S}/a/7f3e`, 'Reset everything', 'reset'],

  // German
  [`${S}/de/konto/loeschen`, undefined, 'delete'],
  [`${S}/konto-löschen`, undefined, 'delete'],
  [`${S}/eintrag/entfernen?id=2`, undefined, 'delete'],
  [`${S}/akten/vernichten`, undefined, 'delete'],
  [`${S}/mail/3/in-den-papierkorb`, undefined, 'delete'],
  [`${S}/vertrag/kuendigen`, undefined, 'cancel'],
  [`${S}/bestellung/stornieren`, undefined, 'cancel'],
  [`${S}/vorgang/abbrechen`, undefined, 'cancel'],
  [`${S}/newsletter-abbestellen`, undefined, 'unsubscribe'],
  [`${S}/verteiler/austragen`, undefined, 'unsubscribe'],
  [`${S}/newsletter/abmeldung`, undefined, 'unsubscribe'],
  [`${S}/abmelden`, undefined, 'sign_out'],
  [`${S}/ausloggen`, undefined, 'sign_out'],
  [`${S}/warenkorb/hinzufuegen?artikel=5`, undefined, 'cart'],
  [`${S}/in-den-warenkorb/5`, undefined, 'cart'],
  [`${S}/warenkorb-leeren`, undefined, 'cart'],
  [`${S}/jetzt-kaufen/5`, undefined, 'buy'],
  [`${S}/kasse`, undefined, 'buy'],
  [`${S}/kanal/abonnieren`, undefined, 'subscribe'],
  [`${S}/email/bestaetigen?t=1`, undefined, 'confirm'],
  [`${S}/zugang/sperren`, undefined, 'account'],
  [`${S}/konto/schliessen`, undefined, 'account'],
  [`${S}/profil-deaktivieren`, undefined, 'account'],
  [`${S}/vollmacht/widerrufen`, undefined, 'revoke'],
  [`${S}/einstellungen/zuruecksetzen`, undefined, 'reset'],
  [`${S}/x/1`, 'Konto löschen', 'delete'],
  [`${S}/x/1`, 'Vom Newsletter abmelden', 'unsubscribe'],
  [`${S}/x/1`, 'Abmelden', 'sign_out'],
  [`${S}/x/1`, 'In den Warenkorb', 'cart'],

  // French
  [`${S}/fr/se-desabonner`, undefined, 'unsubscribe'],
  [`${S}/compte/supprimer`, undefined, 'delete'],
  [`${S}/compte/suppression`, undefined, 'delete'],
  [`${S}/photo/effacer/3`, undefined, 'delete'],
  [`${S}/panier/retirer?id=2`, undefined, 'delete'],
  [`${S}/commande/annuler`, undefined, 'cancel'],
  [`${S}/contrat/resilier`, undefined, 'cancel'],
  [`${S}/desinscription`, undefined, 'unsubscribe'],
  [`${S}/lettre/desabonnement`, undefined, 'unsubscribe'],
  [`${S}/deconnexion`, undefined, 'sign_out'],
  [`${S}/panier/ajouter?p=4`, undefined, 'cart'],
  [`${S}/vider-panier`, undefined, 'cart'],
  [`${S}/acheter/4`, undefined, 'buy'],
  [`${S}/s-abonner`, undefined, 'subscribe'],
  [`${S}/inscription/confirmer`, undefined, 'confirm'],
  [`${S}/compte/desactiver`, undefined, 'account'],
  [`${S}/compte/fermer`, undefined, 'account'],
  [`${S}/acces/revoquer`, undefined, 'revoke'],
  [`${S}/parametres/reinitialiser`, undefined, 'reset'],
  [`${S}/x/1`, 'Se déconnecter', 'sign_out'],
  [`${S}/x/1`, 'Ajouter au panier', 'cart'],
  [`${S}/x/1`, 'Supprimer', 'delete'],

  // Spanish
  [`${S}/cuenta/eliminar`, undefined, 'delete'],
  [`${S}/foto/borrar/3`, undefined, 'delete'],
  [`${S}/registro/suprimir`, undefined, 'delete'],
  [`${S}/carrito/quitar?id=3`, undefined, 'delete'],
  [`${S}/pedido/cancelar`, undefined, 'cancel'],
  [`${S}/reserva/anular`, undefined, 'cancel'],
  [`${S}/darse-de-baja`, undefined, 'unsubscribe'],
  [`${S}/boletin/baja`, undefined, 'unsubscribe'],
  [`${S}/desuscribirse`, undefined, 'unsubscribe'],
  [`${S}/cerrar-sesion`, undefined, 'sign_out'],
  [`${S}/salir`, undefined, 'sign_out'],
  [`${S}/carrito/agregar?p=4`, undefined, 'cart'],
  [`${S}/vaciar-carrito`, undefined, 'cart'],
  [`${S}/comprar/4`, undefined, 'buy'],
  [`${S}/suscribirse`, undefined, 'subscribe'],
  [`${S}/correo/confirmar`, undefined, 'confirm'],
  [`${S}/cuenta/desactivar`, undefined, 'account'],
  [`${S}/cuenta/cerrar`, undefined, 'account'],
  [`${S}/permiso/revocar`, undefined, 'revoke'],
  [`${S}/ajustes/restablecer`, undefined, 'reset'],
  [`${S}/x/1`, 'Darse de baja', 'unsubscribe'],
  [`${S}/x/1`, 'Añadir al carrito', 'cart'],
  [`${S}/x/1`, 'Cerrar sesión', 'sign_out'],
];

/** Links that only read: each would be a false positive that harms ordinary crawling. */
const READS: [string, string?][] = [
  [`${S}/blog/how-to-delete-files`],
  [`${S}/how-to-delete-files`],
  [`${S}/docs/remove-background-guide`],
  [`${S}/remove-background-guide`],
  [`${S}/docs/api/delete-object`],
  [`${S}/en/docs/cancel`],
  [`${S}/help/unsubscribe`],
  [`${S}/search?q=delete`],
  [`${S}/search?query=unsubscribe+from+newsletter`],
  [`${S}/products?filter=remove`],
  [`${S}/orders`],
  [`${S}/orders/44`],
  [`${S}/order-history`],
  [`${S}/cart`],
  [`${S}/products/add-ons`],
  [`${S}/posts/new`],
  [`${S}/cancellation-policy`],
  [`${S}/subscriptions`],
  [`${S}/payment-methods`],
  [`${S}/paypal-info`],
  [`${S}/buying-guide`],
  [`${S}/order/confirmation`],
  [`${S}/account`],
  [`${S}/account/settings`],
  [`${S}/login`],
  [`${S}/trash`],
  [`${S}/de/hilfe/konto-loeschen`],
  [`${S}/widerrufsbelehrung`],
  [`${S}/fr/commande/suivi`],
  [`${S}/viajes/baja-california`],
  [`${S}/articles/why-we-removed-the-old-editor-from-the-app`],
  [`${S}/a/7f3e`, 'How to delete your account'],
  [`${S}/a/7f3e`, 'Wie lösche ich mein Konto?'],
  [`${S}/a/7f3e`, 'Buy now'],
  [`${S}/a/7f3e`, 'Pay bills'],
  [`${S}/a/7f3e`, 'Checkout'],
  [`${S}/a/7f3e`, 'Subscribe to our newsletter'],
  [`${S}/a/7f3e`, 'Clear filters'],
  [`${S}/a/7f3e`, 'Reset search'],
  [`${S}/a/7f3e`, 'The big reset'],
  [`${S}/a/7f3e`, 'Why we removed the old editor and what replaces it'],
  [`${S}/a/7f3e`, 'Remove background guide'],
  [`${S}/a/7f3e`, 'Add a comment'],
  [`${S}/a/7f3e`, 'Read more'],
];

t.test('links that act are caught, in every language, by address and by text', async (t) => {
  for (const [url, text, action] of ACTS) {
    const v = destructiveLink(url, text);
    t.equal(v?.action, action, `${url}${text ? ` "${text}"` : ''} -> ${action}`);
    if (v) fired.add(v.rule);
  }
});

t.test('links that only read are followed', async (t) => {
  for (const [url, text] of READS) t.equal(destructiveLink(url, text), undefined, `${url}${text ? ` "${text}"` : ''} reads`);
});

t.test('an address that cannot be parsed is judged to act', async (t) => {
  t.ok(destructiveLink('http://[::1'), 'fail closed');
});

t.test('the reason says what and where, and names no more than the matched words', async (t) => {
  const r = destructiveReason(destructiveLink(`${S}/account/delete?id=1`)!);
  t.match(r, /delete; its address says "delete"/);
  t.match(destructiveReason(destructiveLink(`${S}/x`, 'Sign out')!), /sign out; its link text says "sign out"/);
});

t.test('words split at / - _ . and camelCase, digits apart, folded', async (t) => {
  t.same(words('addToCart'), ['add', 'to', 'cart']);
  t.same(words('konto_Löschen.php'), ['konto', 'loschen', 'php']);
  t.same(words('delete123'), ['delete', '123']);
});

t.test('every row of the table fired, and every language has rows', async (t) => {
  for (const row of DESTRUCTIVE_LINK_WORDS) t.ok(fired.has(row.id), `${row.id} fired`);
  for (const lang of RULE_LANGS) t.ok(DESTRUCTIVE_LINK_WORDS.some((r) => r.lang === lang), `${lang} has rows`);
  t.equal(new Set(DESTRUCTIVE_LINK_WORDS.map((r) => r.id)).size, DESTRUCTIVE_LINK_WORDS.length, 'ids are unique');
});
