// The store's side of secret storage (config.ts calls these four): fill a keyring profile's
// secrets in on read, decide where a write's secrets go, remove them with the profile, and move
// them (`auth migrate`). A profile's secrets are all in one place: the file, or the keychain when
// the profile is marked `secrets_in: "keyring"` (non-secret fields always stay in the file).
import type { Profile } from './profile.js';
import { XctlError, errorMessage } from './errors.js';
import {
  KEYRING_FIELDS,
  preference,
  probeAsync,
  probeSync,
  unreachable,
  type Keyring,
  type Probe,
  type SecretStorage,
  type Secrets,
} from './secret-store.js';

export class ProfileSecrets {
  private probe?: Probe;
  /**
   * Set when a write kept secrets in the file because a keychain that is there could not be used
   * (locked): why, for the command to say where the secrets went.
   */
  fellBack?: string;

  constructor(
    readonly storePath: string,
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** The keychain account of a profile: its name and the store it belongs to. */
  account(profile: string): string {
    return `${profile}@${this.storePath}`;
  }

  /** Called when the store opens: a keyring profile means asking the keychain, bounded, now. */
  async prepare(profiles: Record<string, Profile>): Promise<void> {
    const marked = Object.keys(profiles).find((n) => profiles[n]?.secrets_in === 'keyring');
    if (marked !== undefined && !this.probe) this.probe = await probeAsync(this.env, this.account(marked));
  }

  /** Whether a keychain can be used now (asked at most once per process, bounded). */
  status(): Probe {
    this.probe ??= probeSync(this.env, this.account('(probe)'));
    return this.probe;
  }

  private keyring(profile: string): Keyring {
    const p = this.status();
    if (!p.keyring) throw unreachable(profile, p.why);
    return p.keyring;
  }

  /** The profile as stored, with its keychain secrets filled in. */
  fill(name: string, p: Profile): Profile {
    if (p.secrets_in !== 'keyring') return p;
    let s: Secrets | undefined;
    try {
      s = this.keyring(name).read(this.account(name));
    } catch (e) {
      if (e instanceof XctlError) throw e;
      throw unreachable(name, errorMessage(e));
    }
    return { ...p, ...(s ?? {}) };
  }

  /**
   * What the file gets for a profile about to be written (`next` holds every field, secrets
   * included; `before` is the file's copy): the secrets go to the keychain, first, when the
   * profile lives there or is new and the preference allows it; else they stay in `next`.
   */
  split(name: string, next: Profile, before: Profile | undefined): Profile {
    const secrets = pickSecrets(next);
    const where = this.placeFor(next, before, Object.keys(secrets).length > 0);
    if (where === 'file') {
      const { secrets_in: _drop, ...rest } = next;
      return rest;
    }
    const account = this.account(name);
    try {
      if (Object.keys(secrets).length) this.keyring(name).write(account, secrets);
      else this.keyring(name).remove(account);
    } catch (e) {
      if (e instanceof XctlError) throw e;
      throw unreachable(name, errorMessage(e));
    }
    return { ...stripSecrets(next), secrets_in: 'keyring' };
  }

  private placeFor(next: Profile, before: Profile | undefined, hasSecrets: boolean): SecretStorage {
    if (before?.secrets_in === 'keyring') return 'keyring';
    // Secrets already in the file stay there until `auth migrate` moves them all at once.
    if (before && Object.keys(pickSecrets(before)).length) return 'file';
    if (!hasSecrets) return 'file';
    const pref = preference(this.env, next.secret_storage);
    if (pref === 'file') return 'file';
    const p = this.status();
    if (p.keyring) return 'keyring';
    if (pref === 'keyring') {
      throw new XctlError(`secret_storage is keyring but the OS keychain cannot be used: ${p.why}`, {
        hint: 'start or unlock it, or choose the file: XCTL_SECRET_STORAGE=file or `xctl config set secret_storage file`',
      });
    }
    if (p.asked) this.fellBack = p.why;
    return 'file';
  }

  /** Removes a deleted profile's keychain entry (the file copy is gone already). */
  remove(name: string, was: Profile | undefined): void {
    if (was?.secrets_in !== 'keyring') return;
    try {
      this.keyring(name).remove(this.account(name));
    } catch {
      /* the profile is gone from the file; a keychain entry left behind holds nothing reachable */
    }
  }

  /**
   * Moves a profile's secrets (`auth migrate`): the new place is written and read back before the
   * old one is given up, so a process killed at any point leaves the profile whole in one place.
   * Returns the file's new copy of the profile, and a step to run after the file is written.
   */
  migrate(name: string, p: Profile, to: SecretStorage): { file: Profile; after?: () => void } {
    const full = this.fill(name, p);
    const secrets = pickSecrets(full);
    const account = this.account(name);
    if (to === 'keyring') {
      const probe = this.status();
      if (!probe.keyring) throw new XctlError(`the OS keychain cannot be used: ${probe.why}; nothing was moved`);
      const k = probe.keyring;
      k.write(account, secrets);
      const back = k.read(account) ?? {};
      if (JSON.stringify(sorted(back)) !== JSON.stringify(sorted(secrets))) {
        throw new XctlError('the keychain did not keep what was written: nothing was moved');
      }
      return { file: { ...stripSecrets(full), secrets_in: 'keyring' } };
    }
    const { secrets_in: _drop, ...inFile } = full;
    const k = p.secrets_in === 'keyring' ? this.keyring(name) : undefined;
    return { file: inFile, ...(k ? { after: () => k.remove(account) } : {}) };
  }
}

export function pickSecrets(p: Profile): Secrets {
  const out: Secrets = {};
  for (const f of KEYRING_FIELDS) if (p[f]) out[f] = p[f];
  return out;
}

function stripSecrets(p: Profile): Profile {
  const out = { ...p };
  for (const f of KEYRING_FIELDS) delete out[f];
  return out;
}

function sorted(s: Secrets): Array<[string, string | undefined]> {
  return Object.entries(s).sort(([a], [b]) => a.localeCompare(b));
}
