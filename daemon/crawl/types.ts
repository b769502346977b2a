/** The crawl's shared shapes live in protocol/ (storage keeps them too); the crawl parts import them from here. */
export * from '../../protocol/crawl.js';
