// The classifier alone: these tests never open a connection, so ranges other than loopback are safe to name.
import t from 'tap';
import { classifyAddress, isBlockedAddress, parseHostAsIp, type AddressClass } from '../../../daemon/net/address.js';

const cases: [string, AddressClass][] = [
  // loopback, in every spelling that reaches it
  ['127.0.0.1', 'loopback'],
  ['127.0.0.2', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'], // what WHATWG URL makes of [::ffff:127.0.0.1]
  ['[::ffff:7f00:1]', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated
  ['::127.0.0.1', 'loopback'], // IPv4-compatible
  ['64:ff9b::127.0.0.1', 'loopback'], // NAT64
  ['64:ff9b::7f00:1', 'loopback'],
  ['2002:7f00:1::', 'loopback'], // 6to4
  ['2002:7f00:0001:1234::1', 'loopback'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 stored inverted
  ['2130706433', 'loopback'],
  ['127.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['017700000001', 'loopback'],
  // private
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['100.127.255.255', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['64:ff9b::10.1.2.3', 'private'],
  ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
  ['167772161', 'private'], // 10.0.0.1 as one number
  ['012.0.0.1', 'private'], // octal 012 = 10
  ['64:ff9b:1::1', 'private'],
  // link-local, the cloud metadata address first
  ['169.254.169.254', 'link_local'],
  ['::ffff:169.254.169.254', 'link_local'],
  ['::ffff:a9fe:a9fe', 'link_local'],
  ['0xa9fea9fe', 'link_local'],
  ['2852039166', 'link_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  // unspecified: 0.0.0.0 reaches the local host on Linux
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  // multicast
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  // reserved
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['4000::1', 'reserved'], // outside global unicast
  ['::2', 'reserved'],
  ['not-an-ip', 'reserved'],
  ['', 'reserved'],
  ['1.2.3.4.5', 'reserved'],
  ['256.0.0.1', 'reserved'],
  // public: these must pass
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['169.253.0.1', 'public'],
  ['2606:4700::1', 'public'],
  ['2a00:1450:4001:82b::200e', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:0808:0808::1', 'public'],
  ['134744072', 'public'], // 8.8.8.8 as one number
];

t.test('classifyAddress', async (t) => {
  for (const [ip, cls] of cases) t.equal(classifyAddress(ip), cls, `${JSON.stringify(ip)} is ${cls}`);
  // Answers are kept (the proxy and the write gate ask again and again): asked again, and again after the table was filled
  // with other addresses and forgotten, every answer is the same.
  for (const [ip, cls] of cases) t.equal(classifyAddress(ip), cls, `${JSON.stringify(ip)} is ${cls}, asked again`);
  for (let i = 0; i < 5000; i++) classifyAddress(`10.${(i >> 8) & 255}.${i & 255}.1`);
  for (const [ip, cls] of cases) t.equal(classifyAddress(ip), cls, `${JSON.stringify(ip)} is ${cls}, after the table filled`);
  // An input longer than any host name is worked out each time, and still fails closed.
  t.equal(classifyAddress(`127.0.0.1${' '.repeat(300)}x`), 'reserved');
});

t.test('every form the issue names is blocked by default', async (t) => {
  for (const ip of [
    '169.254.169.254', '10.1.2.3', '172.16.0.1', '172.31.0.1', '192.168.0.1', 'fc00::1', 'fdff::1', 'fe80::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '2130706433', '0177.0.0.1', '0x7f.1', '0x7f000001', '127.1',
  ]) {
    t.ok(isBlockedAddress(ip), `${ip} blocked`);
    t.ok(isBlockedAddress(ip, {}), `${ip} blocked with nothing allowed`);
  }
  t.notOk(isBlockedAddress('8.8.8.8'));
  t.notOk(isBlockedAddress('2606:4700::1'));
});

t.test('isBlockedAddress honours what the admin allows', async (t) => {
  t.notOk(isBlockedAddress('127.0.0.1', { loopback: true }));
  t.notOk(isBlockedAddress('::ffff:7f00:1', { loopback: true }));
  t.ok(isBlockedAddress('10.0.0.1', { loopback: true }), 'loopback does not open private ranges');
  t.notOk(isBlockedAddress('10.0.0.1', { private: true }));
  t.ok(isBlockedAddress('127.0.0.1', { private: true }), 'private does not open loopback');
  t.notOk(isBlockedAddress('169.254.169.254', { private: true }), 'link-local follows private by default');
  t.ok(isBlockedAddress('169.254.169.254', { private: true, linkLocal: false }), 'unless linkLocal says no');
  t.notOk(isBlockedAddress('fe80::1', { linkLocal: true }));
  const all = { loopback: true, private: true, linkLocal: true };
  for (const ip of ['0.0.0.0', '::', '224.0.0.1', 'ff02::1', '240.0.0.1', '2001:db8::1', 'garbage']) {
    t.ok(isBlockedAddress(ip, all), `${ip} is never allowed`);
  }
});

t.test('parseHostAsIp understands what browsers accept as IP hosts', async (t) => {
  const ok: [string, string][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0X7F.0.0.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'], // one trailing dot is ignored
    ['0x', '0.0.0.0'],
    ['１２７.０.０.１', '127.0.0.1'], // full-width digits, mapped like the URL parser maps them
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['[FE80::1]', 'fe80::1'],
  ];
  for (const [host, ip] of ok) t.equal(parseHostAsIp(host), ip, `${host} -> ${ip}`);
  for (const host of ['localhost', 'example.com', 'rebind.test', '1.2.3.4.5', '256.1.1.1', '1.256.1.1', '08.0.0.1', '0x7g.1', '4294967296', '1..2', '[example.com]', '[127.0.0.1]', '']) {
    t.equal(parseHostAsIp(host), undefined, `${JSON.stringify(host)} is not an IP`);
  }
});

t.test('parseHostAsIp agrees with the WHATWG URL parser Node and browsers share', async (t) => {
  const hosts = ['127.1', '2130706433', '0x7f.1', '0177.0.0.1', '0x7f000001', '10.1', '192.168.257', '0xc0.0xa8.1.1', '3232235777', '000000000127.0.0.1', '0.0.0.0', '1.2.3'];
  for (const host of hosts) {
    const viaUrl = new URL(`http://${host}/`).hostname;
    t.equal(parseHostAsIp(host), viaUrl, host);
  }
});
