/**
 * Who a request comes from: X-Forwarded-For counts only from a proxy the admin named, and then only its last
 * address (the one that proxy wrote; what the client wrote before it is the client's to forge).
 */
import t from 'tap';
import { clientAddress, plainAddress } from '../../../daemon/http/forwarded.js';

const trusted = new Set(['127.0.0.1', '10.0.0.5']);

t.test('an untrusted peer cannot name another address', async (t) => {
  t.equal(clientAddress('203.0.113.9', '198.51.100.1', trusted), '203.0.113.9');
  t.equal(clientAddress('203.0.113.9', '127.0.0.1', trusted), '203.0.113.9', 'not even a trusted one');
  t.equal(clientAddress('127.0.0.1', '198.51.100.1', new Set()), '127.0.0.1', 'no proxies named: the header is ignored');
});

t.test("a trusted proxy's last entry is the client", async (t) => {
  t.equal(clientAddress('127.0.0.1', '198.51.100.1', trusted), '198.51.100.1');
  t.equal(clientAddress('10.0.0.5', '1.2.3.4, 198.51.100.7', trusted), '198.51.100.7', 'what the client wrote first is not taken');
  t.equal(clientAddress('127.0.0.1', 'not-an-address', trusted), '127.0.0.1', 'a malformed entry: the peer');
  t.equal(clientAddress('127.0.0.1', undefined, trusted), '127.0.0.1');
  t.equal(clientAddress('0000:0000:0000:0000:0000:ffff:7f00:0001', '2001:db8::1', trusted), '2001:db8::1', "uWS's IPv4-in-IPv6 peer is matched");
});

t.test('IPv4 written inside IPv6 reads as IPv4', async (t) => {
  t.equal(plainAddress('::ffff:10.0.0.5'), '10.0.0.5');
  t.equal(plainAddress('0000:0000:0000:0000:0000:ffff:0a00:0005'), '10.0.0.5');
  t.equal(plainAddress('2001:DB8::1'), '2001:db8::1');
});
