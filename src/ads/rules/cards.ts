// Rules of the creative endpoints that go beyond one parameter (spec 2.3 card components, 4.1
// and 8): shared by the CLI (checked before sending) and the sandbox (same functions).
import * as z from 'zod';
import type { ParamDef, Rule, Violation } from '../resource-types.js';
import { wrapSchema } from '../params.js';
import { categoryOfKey, kindOfCategory } from '../../contract/media.js';
import { isOneOf, listOf } from '../../contract/guards.js';

/** ISO 3166-1 alpha-2 codes (spec 2.3 rule 5: country_code of an APP destination). */
export const ISO_COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** Spec 2.3 rule 2: BUTTON label values. */
export const BUTTON_LABELS = ['BOOK', 'CONNECT', 'INSTALL', 'OPEN', 'ORDER', 'PLAY', 'SHOP'] as const;
/** Spec 8: swipeable media (and carousel slides), 2 to 6 items. */
export const SWIPEABLE_MIN = 2;
export const SWIPEABLE_MAX = 6;
/** Spec 8: post attachments, up to 4 images, or 1 animated GIF, or 1 video. */
export const MAX_IMAGES = 4;

/**
 * A media key is `<category>_<id>`. The platform's category prefixes (src/contract/media.ts) say
 * what the media is: 3 an image, 16 an animated GIF, 7 (post video) and 13 (amplify video) a
 * video. The CLI can therefore check the attachment mix before sending; the sandbox checks
 * against its library.
 */
export const MEDIA_KEY = /^\d{1,3}_\d{1,19}$/;
export type MediaKind = 'IMAGE' | 'GIF' | 'VIDEO';
export function mediaKindOfKey(key: string): MediaKind | undefined {
  const c = categoryOfKey(key);
  const kind = c && kindOfCategory(c);
  return kind === 'image' ? 'IMAGE' : kind === 'gif' ? 'GIF' : kind === 'video' ? 'VIDEO' : undefined;
}

/** Spec 8: up to 4 images, or 1 animated GIF, or 1 video (never mixed). Undefined when fine. */
export function attachmentProblem(kinds: Array<MediaKind | undefined>): string | undefined {
  const images = kinds.filter((k) => k === 'IMAGE').length;
  const gifs = kinds.filter((k) => k === 'GIF').length;
  const videos = kinds.filter((k) => k === 'VIDEO').length;
  const unknown = kinds.length - images - gifs - videos;
  if (unknown) return 'must be media keys of images (3_), animated GIFs (16_) or videos (7_, 13_)';
  if ((gifs || videos) && kinds.length > 1) return 'may hold up to 4 images, or 1 animated GIF, or 1 video (not a mix)';
  if (images > MAX_IMAGES) return `may hold at most ${MAX_IMAGES} images (got ${images})`;
  return undefined;
}

/** media_keys of draft and scheduled posts: a comma list of media keys, checked by attachmentProblem. */
export function mediaKeysRule(name = 'media_keys'): Rule {
  return (v) => {
    const keys = v[name];
    if (!Array.isArray(keys)) return undefined;
    const problem = attachmentProblem(keys.map((k) => mediaKindOfKey(String(k))));
    return problem ? { param: name, code: 'INVALID_PARAMETER', message: problem } : undefined;
  };
}

/** A parameter whose empty value removes the stored field (spec 4.1: card_uri, media_keys on PUT); parses '' to null. */
export function clearable(d: ParamDef): ParamDef {
  wrapSchema(d, (inner) => z.union([z.literal('').transform(() => null), inner]) as z.ZodType<unknown>);
  d.rule = [d.rule, 'empty value removes it'].filter(Boolean).join('; ');
  return d;
}

// ---- card components (spec 2.3) ----

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);
/** The objects of a list (the components and slides are checked before they are read). */
const objs = (x: unknown): Obj[] => (Array.isArray(x) ? x.filter(isObj) : []);
const isStr = (x: unknown): x is string => typeof x === 'string' && x.length > 0;
const MEDIA_TYPES = new Set(['MEDIA', 'SWIPEABLE_MEDIA']);

function destinationProblem(d: unknown, where: string, owner: 'DETAILS' | 'BUTTON'): string | undefined {
  if (!isObj(d)) return `${where}.destination is required (an object)`;
  if (d.type === 'WEBSITE') {
    // Rule 3: WEBSITE destinations only with DETAILS. Rule 4: url required.
    if (owner !== 'DETAILS') return `${where}.destination of type WEBSITE is only allowed in a DETAILS component`;
    if (!isStr(d.url)) return `${where}.destination.url is required for a WEBSITE destination`;
    return undefined;
  }
  if (d.type === 'APP') {
    // Rule 3: APP destinations only with BUTTON. Rule 5: country, store ids, deep links.
    if (owner !== 'BUTTON') return `${where}.destination of type APP is only allowed in a BUTTON component`;
    if (!isStr(d.country_code) || !ISO_COUNTRIES.has(d.country_code))
      return `${where}.destination.country_code must be an ISO 3166-1 alpha-2 code such as US (got ${JSON.stringify(d.country_code ?? null)})`;
    if (!isStr(d.googleplay_app_id) && !isStr(d.ios_app_store_identifier))
      return `${where}.destination needs googleplay_app_id or ios_app_store_identifier (at least one)`;
    if (d.googleplay_deep_link !== undefined && !isStr(d.googleplay_app_id))
      return `${where}.destination.googleplay_deep_link is only allowed with googleplay_app_id`;
    if (d.ios_deep_link !== undefined && !isStr(d.ios_app_store_identifier))
      return `${where}.destination.ios_deep_link is only allowed with ios_app_store_identifier`;
    return undefined;
  }
  return `${where}.destination.type must be WEBSITE or APP`;
}

function componentProblem(c: unknown, where: string): string | undefined {
  if (!isObj(c)) return `${where} must be an object with a type`;
  switch (c.type) {
    case 'MEDIA':
      return isStr(c.media_key) ? undefined : `${where} (MEDIA) needs media_key (a string)`;
    case 'SWIPEABLE_MEDIA': {
      const keys = c.media_keys;
      if (!Array.isArray(keys) || keys.some((k) => !isStr(k)))
        return `${where} (SWIPEABLE_MEDIA) needs media_keys (an array of strings)`;
      if (keys.length < SWIPEABLE_MIN || keys.length > SWIPEABLE_MAX)
        return `${where} (SWIPEABLE_MEDIA) media_keys must hold ${SWIPEABLE_MIN} to ${SWIPEABLE_MAX} entries (got ${keys.length})`;
      return undefined;
    }
    case 'DETAILS':
      if (!isStr(c.title)) return `${where} (DETAILS) needs title (a string)`;
      return destinationProblem(c.destination, where, 'DETAILS');
    case 'BUTTON': {
      const l = c.label;
      if (!isObj(l) || l.type !== 'ENUM' || !isOneOf(BUTTON_LABELS, l.value)) {
        return `${where} (BUTTON) label must be {"type":"ENUM","value":<one of ${BUTTON_LABELS.join(', ')}>}`;
      }
      return destinationProblem(c.destination, where, 'BUTTON');
    }
    default:
      return `${where}.type must be one of MEDIA, SWIPEABLE_MEDIA, DETAILS, BUTTON (got ${JSON.stringify(c.type ?? null)})`;
  }
}

/** Spec 2.3 rules 1-5 over one card's components; undefined when the card is well formed. */
export function componentsProblem(components: unknown, where = 'components'): string | undefined {
  if (!Array.isArray(components) || components.length === 0) return `${where} must be a non-empty array of components`;
  for (const [i, c] of components.entries()) {
    const p = componentProblem(c, `${where}[${i}]`);
    if (p) return p;
  }
  // Rule 1: one media component plus a DETAILS or BUTTON component.
  const types = objs(components).map((c) => String(c.type));
  const media = types.filter((t) => MEDIA_TYPES.has(t)).length;
  const actions = types.filter((t) => t === 'DETAILS' || t === 'BUTTON').length;
  if (media !== 1) return `${where} must hold exactly one media component (MEDIA or SWIPEABLE_MEDIA; got ${media})`;
  if (actions !== 1) return `${where} must hold one DETAILS or one BUTTON component (got ${actions})`;
  return undefined;
}

/** slides: 2 to 6 slides (a carousel, spec 8), each a complete card (spec 4.1). */
export function slidesProblem(slides: unknown): string | undefined {
  if (!Array.isArray(slides)) return 'slides must be an array of slides (each an array of components)';
  if (slides.length < SWIPEABLE_MIN || slides.length > SWIPEABLE_MAX)
    return `slides must hold ${SWIPEABLE_MIN} to ${SWIPEABLE_MAX} slides (got ${slides.length})`;
  for (const [i, s] of slides.entries()) {
    const p = componentsProblem(s, `slides[${i}]`);
    if (p) return p;
    if (objs(s).some((c) => c.type === 'SWIPEABLE_MEDIA'))
      return `slides[${i}] must use a MEDIA component (a slide is one card of the carousel)`;
  }
  return undefined;
}

function schemaOf(check: (x: unknown) => string | undefined): z.ZodType<unknown> {
  return z.unknown().superRefine((x, ctx) => {
    const p = check(x);
    // The CLI and the sandbox prefix the parameter name: "components [1].destination ...".
    if (p)
      ctx.addIssue({
        code: 'custom',
        message: p.replace(/^(components|slides)(?=\[)/, '').replace(/^(components|slides) /, ''),
      });
  });
}
export const componentsSchema = schemaOf((x) => componentsProblem(x));
export const slidesSchema = schemaOf((x) => slidesProblem(x));

/** Every media key a card's components or slides name, in order. */
export function cardMediaKeys(components: unknown, slides: unknown): string[] {
  const all = [...objs(components), ...(Array.isArray(slides) ? objs(slides.flat()) : [])];
  return all.flatMap((c) =>
    c.type === 'MEDIA' ? [String(c.media_key)] : c.type === 'SWIPEABLE_MEDIA' ? listOf(c.media_keys) : [],
  );
}

/** The destination type of a card (WEBSITE or APP). */
export function cardDestination(components: unknown, slides: unknown): 'WEBSITE' | 'APP' {
  const first = objs(Array.isArray(components) ? components : Array.isArray(slides) ? slides[0] : []);
  const destination = first.find((c) => c.type === 'DETAILS' || c.type === 'BUTTON')?.destination;
  return isObj(destination) && destination.type === 'APP' ? 'APP' : 'WEBSITE';
}

/** The component-based card_type (spec 2.2) from the shape of the card and the media kinds. */
export function cardTypeOf(components: unknown, slides: unknown, kinds: MediaKind[]): string {
  const dest = cardDestination(components, slides);
  const allImages = kinds.every((k) => k === 'IMAGE');
  const allVideos = kinds.every((k) => k === 'VIDEO');
  const mix = allImages ? 'IMAGE' : allVideos ? 'VIDEO' : 'MIXED_MEDIA';
  if (Array.isArray(slides)) return `${mix}_MULTI_DEST_CAROUSEL_WEBSITE`;
  const swipe = objs(components).some((c) => c.type === 'SWIPEABLE_MEDIA');
  if (!swipe) return `${allVideos ? 'VIDEO' : 'IMAGE'}_${dest}`;
  return mix === 'MIXED_MEDIA' ? `MIXED_MEDIA_SINGLE_DEST_CAROUSEL_${dest}` : `${mix}_CAROUSEL_${dest}`;
}

/** Cards: exactly one of components or slides on create; never both (spec 4.1). */
export function oneOfComponentsOrSlides(required: boolean): Rule {
  return (v) => {
    const c = v.components !== undefined;
    const s = v.slides !== undefined;
    if (c && s)
      return {
        param: 'slides',
        code: 'INVALID_PARAMETER',
        message: 'cannot be used together with components (one or the other)',
      };
    if (required && !c && !s)
      return {
        param: 'components',
        code: 'MISSING_PARAMETER',
        message: 'is required (or slides, exactly one of them)',
      };
    return undefined;
  };
}

// ---- poll cards (spec 4.1) ----

/** Spec 8: poll duration 5 to 10080 minutes; choice text 25. */
export const POLL_MIN_MINUTES = 5;
export const POLL_MAX_MINUTES = 10080;
export const POLL_CHOICE_MAX = 25;

/** third_choice needs first and second; fourth_choice needs the first three. */
export const pollChoiceOrder: Rule = (v) => {
  const order = ['first_choice', 'second_choice', 'third_choice', 'fourth_choice'];
  for (let i = 2; i < order.length; i++) {
    if (v[order[i]!] === undefined) continue;
    const missing = order.slice(0, i).filter((n) => v[n] === undefined);
    if (missing.length)
      return {
        param: order[i]!,
        code: 'INVALID_PARAMETER',
        message: `needs ${order.slice(0, i).join(', ')} (missing ${missing.join(', ')})`,
      };
  }
  return undefined;
};

// ---- video conversation cards (spec 4.1) ----

/** Spec 8: conversation CTA 20 characters not counting `#`; thank-you text and title 23. */
export const CTA_MAX = 20;
export const THANK_YOU_MAX = 23;
export const CTA_ORDINALS = ['first', 'second', 'third', 'fourth'] as const;

/** A call to action's length without its `#` characters. */
export function ctaLength(s: string): number {
  return s.replace(/#/g, '').length;
}

/**
 * *_cta_tweet required when its *_cta is set (and only then); second_cta required when title is
 * not set (on create; on update the sandbox checks the merged card). Third needs second, fourth
 * needs third.
 */
export function conversationRules(create: boolean): Rule[] {
  const pairs: Rule = (v) => {
    for (const o of CTA_ORDINALS) {
      const cta = `${o}_cta`;
      const tweet = `${o}_cta_tweet`;
      if (v[cta] !== undefined && v[cta] !== null && v[tweet] === undefined && create)
        return { param: tweet, code: 'MISSING_PARAMETER', message: `is required when ${cta} is set` };
      if (v[tweet] !== undefined && v[cta] === undefined && create)
        return { param: tweet, code: 'INVALID_PARAMETER', message: `needs ${cta}` };
    }
    return undefined;
  };
  const titleOrSecond: Rule = (v) =>
    create && v.title === undefined && v.second_cta === undefined
      ? { param: 'second_cta', code: 'MISSING_PARAMETER', message: 'is required when title is not set' }
      : undefined;
  const order: Rule = (v) => {
    if (v.third_cta !== undefined && create && v.second_cta === undefined)
      return { param: 'third_cta', code: 'INVALID_PARAMETER', message: 'needs second_cta' };
    if (v.fourth_cta !== undefined && create && v.third_cta === undefined)
      return { param: 'fourth_cta', code: 'INVALID_PARAMETER', message: 'needs third_cta' };
    return undefined;
  };
  return [pairs, titleOrSecond, order];
}

/** The same rules over a whole stored card (sandbox, after an update is merged). */
export function conversationCardProblem(card: Record<string, unknown>): Violation | undefined {
  const v: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(card)) if (x !== null && x !== undefined) v[k] = x;
  for (const r of conversationRules(true)) {
    const p = r(v, { nowMs: 0 });
    if (p) return p;
  }
  return undefined;
}

// ---- scheduled posts (spec 4.1, 8) ----

/** Spec 8: scheduling up to one year ahead (365 days), minute granularity. */
export const SCHEDULE_MAX_MS = 365 * 86_400_000;

/** scheduled_at is compared at minute granularity: its seconds are ignored (spec 4.1). */
export function toMinute(ms: number): number {
  return Math.floor(ms / 60_000) * 60_000;
}

/** Snowflake-like long ids (scheduled and draft posts, post ids): time-ordered, unique. */
let seq = 0;
export function longId(nowMs: number): string {
  seq = (seq + 1) % 4096;
  return (
    (BigInt(Math.max(0, nowMs - 1288834974657)) << 22n) |
    BigInt(Math.floor(Math.random() * 1024) << 12) |
    BigInt(seq)
  ).toString();
}
