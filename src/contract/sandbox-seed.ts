// The ids a fresh `xctl sandbox` gives its seeded entities: fixed, so that the help's examples
// (commands/ads/example-values.ts, commands/examples.ts) name things that exist when pasted
// against a sandbox, and a test runs every one of them (test/e2e/help-examples.test.ts). Shaped
// as the service's ids (the ads reference's own examples). Entities created later get random ids.
export const SEEDED_IDS = {
  /** The seeded owner's ads account ("Sandbox Ads Account"). */
  account: '18ce54d4x5t',
  /** The owner's second account in the same business, and a third in another business. */
  sisterAccount: '1ckh3z',
  partnerAccount: '1ckh40',
  fundingInstrument: 'lygyi',
  campaign: '8wku2',
  /** "Website clicks", "Followers", "Preroll views". */
  lineItems: ['8v7jo', '8v7jp', '8v7jq'],
  /** The LOCATION criterion of each seeded line item. */
  targetingCriteria: ['dpl3a6', 'dpl3a7', 'dpl3a8'],
  recommendation: '1nbx5',
  promotableUsers: ['l310s', 'l310t'],
  accountApp: '1ab2c',
  accountMedia: '2pnfd',
  prerollAccountMedia: '2pnfe',
  /** "Seeded customers": a custom audience with no members yet. */
  audience: '1nmth',
  audienceCriterion: 'dpl3a9',
  /** The seeded owner (user id) and another seeded user. */
  owner: '2244994945',
  alice: '783214',
} as const;
